// Turns full snapshots from several sources into per-pod operations, the way the reference's
// pod config does: ADD, UPDATE (spec or metadata changed), DELETE (graceful deletion requested),
// REMOVE (gone from its source), RECONCILE (only status changed).
import type { Logger } from '../../common/log/types.js';
import { canonicalJson } from '../pod/hash.js';
import type { Pod } from '../pod/types.js';
import type { PodSnapshot } from './types.js';

export type PodOperation = 'ADD' | 'UPDATE' | 'DELETE' | 'REMOVE' | 'RECONCILE';

export interface PodUpdate {
  op: PodOperation;
  source: string;
  pods: Pod[];
}

export interface PodConfigOptions {
  /** Every source that will send snapshots (for `seenAllSources`). */
  sources: readonly string[];
  onUpdate: (update: PodUpdate) => void;
  logger: Logger;
}

/**
 * What makes a change an UPDATE (a sync) rather than a RECONCILE, as the reference's
 * podsDifferSemantically: the spec, labels, annotations and the deletion fields. The rest of the
 * metadata (managedFields, resourceVersion, finalizers, ...) changes with every status write
 * the agent makes itself, and a pass over the pod for each would only repeat the last one.
 */
function specKey(p: Pod): string {
  const m = p.metadata;
  return canonicalJson({
    spec: p.spec,
    labels: m.labels ?? {},
    annotations: m.annotations ?? {},
    deletionTimestamp: m.deletionTimestamp,
    deletionGracePeriodSeconds: m.deletionGracePeriodSeconds,
  });
}

export class PodConfig {
  private readonly opts: PodConfigOptions;
  private readonly bySource = new Map<string, Map<string, { pod: Pod; key: string }>>();
  private readonly seen = new Set<string>();

  constructor(opts: PodConfigOptions) {
    this.opts = opts;
  }

  /** Feed one snapshot; emits the operations it implies. */
  apply(snapshot: PodSnapshot): void {
    const old = this.bySource.get(snapshot.source) ?? new Map<string, { pod: Pod; key: string }>();
    const next = new Map<string, { pod: Pod; key: string }>();
    const adds: Pod[] = [];
    const updates: Pod[] = [];
    const deletes: Pod[] = [];
    const reconciles: Pod[] = [];
    for (const pod of snapshot.pods) {
      const uid = pod.metadata.uid;
      if (next.has(uid)) {
        this.opts.logger.warn(
          { uid, source: snapshot.source },
          'pod config: duplicate pod UID in one snapshot; keeping the first',
        );
        continue;
      }
      const prev = old.get(uid);
      // a source hands the same object again for a pod it has no news of: nothing to compare
      if (prev?.pod === pod) {
        next.set(uid, prev);
        continue;
      }
      const key = specKey(pod);
      next.set(uid, { pod, key });
      if (prev === undefined) adds.push(pod);
      else if (prev.key !== key) {
        if (
          pod.metadata.deletionTimestamp !== undefined &&
          prev.pod.metadata.deletionTimestamp === undefined
        )
          deletes.push(pod);
        else updates.push(pod);
      } else if (canonicalJson(prev.pod.status) !== canonicalJson(pod.status)) reconciles.push(pod);
    }
    const removes = [...old.entries()].filter(([uid]) => !next.has(uid)).map(([, v]) => v.pod);
    this.bySource.set(snapshot.source, next);
    this.seen.add(snapshot.source);
    const emit = (op: PodOperation, pods: Pod[]): void => {
      if (pods.length > 0) this.opts.onUpdate({ op, source: snapshot.source, pods });
    };
    emit('REMOVE', removes);
    emit('ADD', adds);
    emit('UPDATE', updates);
    emit('DELETE', deletes);
    emit('RECONCILE', reconciles);
  }

  /** True once every configured source has sent at least one snapshot. */
  seenAllSources(): boolean {
    return this.opts.sources.every((s) => this.seen.has(s));
  }

  /** The merged desired pods, all sources. */
  pods(): Pod[] {
    const out: Pod[] = [];
    for (const m of this.bySource.values()) for (const v of m.values()) out.push(v.pod);
    return out;
  }
}
