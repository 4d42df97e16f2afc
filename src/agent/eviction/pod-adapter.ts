// The eviction manager's view of the pods: candidates from the pod manager (priority, grace
// period, memory use from the runtime's last stats) and eviction as "mark the pod Failed with
// reason Evicted, which the workers treat as terminal (no restart), then stop its containers",
// both through the active pods the node shutdown manager uses too (worker/active-pods.ts).

import type { Names } from '../../common/names.js';
import type { ContainerRuntime } from '../runtime/types.js';
import type { Logger } from '../../common/log/types.js';
import { podWorkingSet, StatsFailureNote, statsSnapshot } from '../runtime/stats-snapshot.js';
import type { Pod } from '../pod/types.js';
import { ActivePods, type ActivePodsSource, type PodStatusWriter } from '../worker/active-pods.js';
import type { EvictablePods, EvictionCandidate } from './manager.js';

/**
 * Mirror pods and system-critical priorities (>= 2000000000) are never evicted. Unlike the
 * reference, static pods are not critical by themselves: here they are the ordinary workload of
 * a standalone agent, and a node out of memory must be able to shed them.
 */
export function isCriticalPod(pod: Pod, names: Names): boolean {
  const mirror = pod.metadata.annotations?.[names.annotations.configMirror];
  return mirror !== undefined || (pod.spec.priority ?? 0) >= 2_000_000_000;
}

export class RuntimeEvictablePods implements EvictablePods {
  private usage = new Map<string, number>();
  private readonly active: ActivePods;
  private readonly note: StatsFailureNote | undefined;

  constructor(
    private readonly o: {
      pods: ActivePodsSource;
      statuses: PodStatusWriter;
      runtime: ContainerRuntime;
      names: Names;
      /** Where a failed stats read is said (pods are then ranked without their memory use). */
      logger?: Logger;
    },
  ) {
    this.active = new ActivePods(o);
    this.note = o.logger && new StatsFailureNote(o.logger, 'the eviction manager');
  }

  candidates(): readonly EvictionCandidate[] {
    return this.active.list().map((p) => ({
      uid: p.metadata.uid,
      namespace: p.metadata.namespace,
      name: p.metadata.name,
      priority: p.spec.priority ?? 0,
      gracePeriodSeconds: p.spec.terminationGracePeriodSeconds ?? 30,
      usage: { memory: this.usage.get(p.metadata.uid) ?? 0 },
      critical: isCriticalPod(p, this.o.names),
    }));
  }

  /** Refreshes per-pod memory use (called before ranking, best effort). */
  async refresh(): Promise<void> {
    const all = await this.o.runtime.listContainers();
    const stats = await statsSnapshot(this.o.runtime, all, this.note);
    const next = new Map<string, number>();
    for (const c of all)
      if (c.kind !== 'sandbox' && c.state === 'running' && !next.has(c.podUid))
        next.set(c.podUid, podWorkingSet(stats, c.podUid, all));
    this.usage = next;
  }

  async evict(
    pod: EvictionCandidate,
    options: { gracePeriodSeconds: number; message: string },
  ): Promise<void> {
    await this.active.kill(pod.uid, options.gracePeriodSeconds, (current) => ({
      ...current,
      phase: 'Failed',
      reason: 'Evicted',
      message: options.message,
    }));
  }
}
