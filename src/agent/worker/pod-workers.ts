// One serial worker per pod UID: updates for a pod never run concurrently, and while one runs
// only the newest pending update is kept (newest update wins). A sync that asks to be requeued
// (back-off expiry) is scheduled with the injected clock; failures retry with a back-off.
import type { Clock } from '../../common/util/clock.js';
import { backoffDelayMs } from '../../common/util/backoff.js';
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import type { Pod } from '../pod/types.js';
import type { SyncResult } from './pod-sync.js';

export type PodWorkType = 'sync' | 'kill';

export interface PodWork {
  type: PodWorkType;
  pod: Pod;
  /** kill: grace period override in seconds. */
  graceSeconds?: number;
}

export interface PodWorkersOptions {
  syncPod: (pod: Pod) => Promise<SyncResult>;
  killPod: (pod: Pod, graceSeconds?: number) => Promise<void>;
  clock: Clock;
  logger: Logger;
  /** First retry delay after a failed sync; doubles up to 30 s. Default 1000 ms. */
  errorBackoffMs?: number;
}

interface Worker {
  running: boolean;
  pending: PodWork | undefined;
  requeue: AbortController | undefined;
  /** Failed syncs in a row (the next retry waits longer). */
  errorFailures: number;
  lastPod: Pod;
  killed: boolean;
}

export class PodWorkers {
  private readonly opts: PodWorkersOptions;
  private readonly workers = new Map<string, Worker>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(opts: PodWorkersOptions) {
    this.opts = opts;
  }

  updatePod(work: PodWork): void {
    if (this.stopped) return;
    const uid = work.pod.metadata.uid;
    let w = this.workers.get(uid);
    if (!w) {
      w = {
        running: false,
        pending: undefined,
        requeue: undefined,
        errorFailures: 0,
        lastPod: work.pod,
        killed: false,
      };
      this.workers.set(uid, w);
    }
    // a kill is final for this uid unless a later sync re-adds the pod
    w.pending = work;
    w.lastPod = work.pod;
    w.requeue?.abort();
    w.requeue = undefined;
    if (!w.running) this.run(uid, w);
  }

  /** UIDs that have a worker (pods being run or torn down). */
  knownUids(): string[] {
    return [...this.workers.keys()];
  }

  isKnown(uid: string): boolean {
    const w = this.workers.get(uid);
    return w !== undefined && !(w.killed && !w.running && w.pending === undefined);
  }

  private run(uid: string, w: Worker): void {
    w.running = true;
    const p = this.loop(uid, w).finally(() => {
      this.inFlight.delete(p);
    });
    this.inFlight.add(p);
  }

  private async loop(uid: string, w: Worker): Promise<void> {
    while (w.pending !== undefined && !this.stopped) {
      const work = w.pending;
      w.pending = undefined;
      try {
        if (work.type === 'kill') {
          await this.opts.killPod(work.pod, work.graceSeconds);
          w.killed = true;
        } else {
          w.killed = false;
          const r = await this.opts.syncPod(work.pod);
          w.errorFailures = 0;
          // The reference logs each SyncPod at V(4); tests count these to know a sync happened.
          this.opts.logger.debug(
            { pod: `${work.pod.metadata.namespace}/${work.pod.metadata.name}`, uid },
            'pod synced',
          );
          // UpdatePod may queue new work while syncPod is awaited.
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
          if (r.requeueAfterMs !== undefined && w.pending === undefined)
            this.scheduleRequeue(w, work, r.requeueAfterMs);
        }
      } catch (err) {
        const delay = backoffDelayMs(
          { initialMs: this.opts.errorBackoffMs ?? 1000, maxMs: 30_000 },
          w.errorFailures++,
        );
        this.opts.logger.error(
          {
            pod: `${work.pod.metadata.namespace}/${work.pod.metadata.name}`,
            uid,
            op: work.type,
            retryInMs: delay,
            err: userMessage(err),
          },
          `pod ${work.type} failed; retrying`,
        );
        // UpdatePod may queue new work while the pod's work is awaited.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (w.pending === undefined) this.scheduleRequeue(w, work, delay);
      }
    }
    w.running = false;
    if (w.killed && w.pending === undefined && w.requeue === undefined) this.workers.delete(uid);
  }

  private scheduleRequeue(w: Worker, work: PodWork, ms: number): void {
    const ac = new AbortController();
    w.requeue = ac;
    this.opts.clock.sleep(ms, ac.signal).then(
      () => {
        if (w.requeue !== ac || this.stopped) return;
        w.requeue = undefined;
        w.pending ??= { ...work, pod: w.lastPod };
        if (!w.running) this.run(work.pod.metadata.uid, w);
      },
      () => undefined,
    );
  }

  /** Resolves when no work is running or pending (requeue timers aside). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** Stops accepting work, cancels requeues, waits for running work to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const w of this.workers.values()) w.requeue?.abort();
    await this.idle();
  }
}
