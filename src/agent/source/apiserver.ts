// The API server source: pods bound to this node (fieldSelector spec.nodeName=<node>) by
// list+watch through the shared client. Mirror pods (our own reflections of static pods) are
// skipped: they are reports, not work. Each change sends a full snapshot to the merger.
// The list and watch are retried for as long as the agent runs, with back-off (800 ms doubling
// to 30 s, as the reference's reflector), so an API server that is down at start or goes away
// later costs only time; only an answer that retrying cannot change (a 4xx other than 429 and
// 410) stops the source, and that is logged as an error.
import type { Names } from '../../common/names.js';
import type { Clock } from '../../common/util/clock.js';
import { BackoffSequence } from '../../common/util/backoff.js';
import type { Logger } from '../../common/log/types.js';
import { ApiError, findCause, userMessage } from '../../common/util/errors.js';
import type { ResourceClient } from '../client/resource-client.js';
import type { ApiObject, WatchEvent } from '../client/types.js';
import { decodePodObject, type DecodedPod } from '../pod/decode.js';
import { configMirrorAnnotation, configSourceAnnotation } from '../pod/static.js';
import type { ObjectMeta, Pod } from '../pod/types.js';
import type { ValidatePodOptions } from '../pod/validate.js';
import type { PodSource, SnapshotSink } from './types.js';

export type ApiPod = ApiObject & Record<string, unknown>;

export interface ApiserverSourceOptions {
  pods: ResourceClient<ApiPod>;
  nodeName: string;
  names: Names;
  /** Kept for symmetry with the other sources; runtime-specific checks happen at admission. */
  validation?: ValidatePodOptions;
  /** Where the problems of a pod that could not be decoded are noted for admission. */
  refusals?: { set(pod: Pod, problems: readonly string[]): void };
  onSnapshot: SnapshotSink;
  logger: Logger;
  clock: Clock;
  /**
   * First retry delay after a failed list or watch (default 800 ms); doubles up to maxRetryDelayMs.
   */
  retryDelayMs?: number;
  /** Longest retry delay (default 30 s). */
  maxRetryDelayMs?: number;
}

/** A 4xx other than 429 (throttled) and 410 (expired): the same request will fail again. */
export function isPermanentApiError(err: unknown): ApiError | undefined {
  const api = findCause(err, (e): e is ApiError => e instanceof ApiError);
  if (
    api === undefined ||
    api.status < 400 ||
    api.status >= 500 ||
    api.status === 429 ||
    api.status === 410
  )
    return undefined;
  return api;
}

/** The metadata fields a stand-in for an undecodable pod keeps (what status and deletion need). */
function standInMeta(meta: NonNullable<ApiPod['metadata']>): ObjectMeta {
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const r: Record<string, unknown> = meta;
  const out: ObjectMeta = {};
  for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'deletionTimestamp'] as const) {
    const v = text(r[k]);
    if (v !== undefined) out[k] = v;
  }
  const grace = r['deletionGracePeriodSeconds'];
  if (typeof grace === 'number') out.deletionGracePeriodSeconds = grace;
  return out;
}

export class ApiserverSource implements PodSource {
  readonly name = 'api';
  private readonly opts: ApiserverSourceOptions;
  private readonly pods = new Map<string, Pod>();
  /** The dropped fields last said per pod UID. */
  private readonly dropped = new Map<string, string>();
  private loop: Promise<void> = Promise.resolve();

  constructor(opts: ApiserverSourceOptions) {
    this.opts = opts;
  }

  start(signal: AbortSignal): Promise<void> {
    // the first snapshot arrives with the initial list; start() does not wait for an API server
    // that is down (the watch retries with back-off and logs)
    this.loop = this.run(signal);
    return Promise.resolve();
  }

  closed(): Promise<void> {
    return this.loop;
  }

  /**
   * Our pod from an API object; undefined for a mirror pod or an object without name and uid.
   * A pod this agent cannot decode is handed on as a stand-in with its problems noted (the pod
   * manager reports it Failed); whether the node can run a decoded one is the pod manager's call.
   */
  toPod(obj: ApiPod): Pod | undefined {
    const meta = obj.metadata ?? {};
    const name = `${meta.namespace ?? ''}/${meta.name ?? ''}`;
    const where = `pod ${name} from the API server`;
    if (meta.annotations?.[configMirrorAnnotation(this.opts.names)] !== undefined) return undefined;
    if (!meta.uid || !meta.name) {
      this.opts.logger.warn({ pod: name }, 'api source: pod without metadata.name or uid; skipped');
      return undefined;
    }
    const uid = meta.uid;
    try {
      const d = decodePodObject({ kind: 'Pod', ...obj }, where, '', undefined, (_w, fields) =>
        this.noteDropped(uid, name, fields),
      );
      return this.ourPod(d.metadata, d);
    } catch (err) {
      const stand = this.ourPod(standInMeta(meta), { spec: { containers: [] } });
      this.opts.refusals?.set(stand, [`the pod cannot be decoded: ${userMessage(err)}`]);
      return stand;
    }
  }

  private ourPod(
    meta: ObjectMeta,
    d: Pick<DecodedPod, 'spec' | 'apiVersion' | 'kind' | 'status'>,
  ): Pod {
    return {
      ...d,
      metadata: {
        ...meta,
        name: meta.name ?? '',
        namespace: meta.namespace ?? 'default',
        uid: meta.uid ?? '',
        annotations: {
          ...(meta.annotations ?? {}),
          [configSourceAnnotation(this.opts.names)]: 'api',
        },
      },
    };
  }

  /** Fields of a newer API server the reference's types lack: said once per pod and set. */
  private noteDropped(uid: string, pod: string, fields: readonly string[]): void {
    const text = fields.join(', ');
    if (this.dropped.get(uid) === text) return;
    this.dropped.set(uid, text);
    this.opts.logger.warn(
      { pod, fields: text },
      'api source: unknown fields dropped from a pod, as the reference decodes it; they ' +
        'take no effect',
    );
  }

  private emit(): void {
    this.opts.onSnapshot({ source: this.name, pods: [...this.pods.values()] });
  }

  private onEvent(ev: WatchEvent<ApiPod>): void {
    if (ev.type === 'RELIST') {
      this.pods.clear();
      for (const o of ev.object.items) {
        const p = this.toPod(o);
        if (p) this.pods.set(p.metadata.uid, p);
      }
      this.emit();
    } else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
      const uid = ev.object.metadata?.uid;
      const p = this.toPod(ev.object);
      if (p) this.pods.set(p.metadata.uid, p);
      else if (uid) this.pods.delete(uid);
      this.emit();
    } else if (ev.type === 'DELETED') {
      const uid = ev.object.metadata?.uid;
      if (uid) this.dropped.delete(uid);
      if (uid && this.pods.delete(uid)) this.emit();
    }
  }

  /** One list+watch until it fails or the signal aborts; `onListed` runs at each list. */
  private async listAndWatch(signal: AbortSignal, onListed: () => void): Promise<void> {
    const fieldSelector = `spec.nodeName=${this.opts.nodeName}`;
    for await (const ev of this.opts.pods.watch({
      fieldSelector,
      signal,
      allowWatchBookmarks: true,
    })) {
      if (ev.type === 'RELIST') onListed();
      this.onEvent(ev);
    }
  }

  private async run(signal: AbortSignal): Promise<void> {
    const backoff = new BackoffSequence({
      clock: this.opts.clock,
      policy: {
        initialMs: this.opts.retryDelayMs ?? 800,
        maxMs: this.opts.maxRetryDelayMs ?? 30_000,
      },
    });
    let failing = false;
    const onListed = (): void => {
      backoff.reset();
      if (failing) this.opts.logger.info({}, 'api source: pods listed from the API server again');
      failing = false;
    };
    while (!signal.aborted) {
      try {
        await this.listAndWatch(signal, onListed);
        // The signal may abort during the list and watch above.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (signal.aborted) return;
        // The watch iterator ends only on abort; an end without one is retried like a failure.
        throw new Error('the watch of pods ended');
      } catch (err) {
        // The signal may abort during the list and watch above.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (signal.aborted) return;
        const permanent = isPermanentApiError(err);
        if (permanent !== undefined) {
          this.opts.logger.error(
            { status: permanent.status, reason: permanent.reason, err: userMessage(err) },
            'api source: the API server refused the list or watch of pods with an ' +
              'answer retrying cannot change; giving up: pods from the API server are no longer ' +
              'updated until the agent restarts',
          );
          return;
        }
        const delayMs = backoff.nextMs();
        failing = true;
        this.opts.logger.warn(
          { err: userMessage(err), retryInMs: delayMs },
          'api source: list or watch of pods failed; retrying with back-off',
        );
        await this.opts.clock.sleep(delayMs, signal).catch(() => undefined);
      }
    }
  }
}
