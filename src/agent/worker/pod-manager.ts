// The sync loop: takes merged pod updates, admits pods, hands work to the pod workers, resyncs
// every pod each `syncFrequencyMs`, reacts to container exits and probe changes at once, and
// (once every source has been seen) tears down containers of pods nobody asks for any more —
// which is also how an agent restart keeps healthy containers: their pods come back with the
// same UID and find them running; pods with no container left lose their cgroups, log directories
// and pod directories (volumes unmounted) too.
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import type { Pod, PodStatus } from '../pod/types.js';
import type { PodUpdate } from '../source/merger.js';
import type { ContainerRuntime } from '../runtime/types.js';
import { admitPod, type AdmitResult } from './admission.js';
import { gateConditionsChanged } from './readiness-gates.js';
import type { PodSyncer } from './pod-sync.js';
import { PodWorkers } from './pod-workers.js';
import type { PodStatusManager, StatusProvider } from './status-manager.js';
import { runEvery } from '../../common/util/every.js';

export interface PodManagerOptions {
  syncer: PodSyncer;
  runtime: ContainerRuntime;
  statuses: PodStatusManager;
  clock: Clock;
  logger: Logger;
  syncFrequencyMs: number;
  /** Pod capacity of the node (max pods, pods per core). */
  capacity: number;
  /** Whether every source has sent its first snapshot (orphan clean-up waits for it). */
  seenAllSources: () => boolean;
  /** How often orphaned containers are looked for. Default 2000 ms. */
  housekeepingMs?: number;
  /** Problems that keep this node from running the pod (e.g. no command for process://). */
  validate?: (pod: Pod) => string[];
  /** Further admission handlers (sysctls): the first refusal names its reason and message. */
  admitHandlers?: readonly ((pod: Pod) => AdmitResult)[];
  /** --cgroups-per-qos: removes the pod cgroups of pods for which `keep` is false. */
  cleanupOrphanCgroups?: (keep: (uid: string) => boolean) => Promise<void>;
  /** podLogsDir: removes the log directories of pods for which `keep` is false. */
  cleanupOrphanPodLogs?: (keep: (uid: string) => boolean) => Promise<void>;
  /**
   * Unmounts the volumes and removes the <root-dir>/pods/<uid> directories of pods for which
   * `keep` is false.
   */
  cleanupOrphanPodDirs?: (keep: (uid: string) => boolean) => Promise<void>;
}

function firstRefusal(
  handlers: readonly ((pod: Pod) => AdmitResult)[],
  pod: Pod,
): AdmitResult | undefined {
  for (const h of handlers) {
    const r = h(pod);
    if (!r.admit) return r;
  }
  return undefined;
}

function fullName(pod: Pod): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}`;
}

export class PodManager implements StatusProvider {
  readonly workers: PodWorkers;
  private readonly opts: PodManagerOptions;
  /** Desired pods by UID (admitted or rejected). */
  private readonly desired = new Map<string, Pod>();
  private readonly rejected = new Set<string>();
  /**
   * UIDs whose deletion was requested (their API object has a deletionTimestamp): only torn down
   * from then on, never synced again (the reference's pod workers never take a pod whose
   * termination was requested back to SyncPod). Dropped when the object is removed.
   */
  private readonly deletionRequested = new Set<string>();
  /**
   * Pods being terminated, by namespace/name. A new pod with the same name (an edited static
   * manifest gets a new UID) starts only after the old one is gone, so it finds its host port
   * (and sandbox name) free instead of crashing into the old one.
   */
  private readonly terminating = new Map<
    string,
    { uid: string; done: Promise<void>; resolve: () => void }
  >();
  private loops: Promise<void>[] = [];
  private readonly housekeepingListeners: ((startedMs: number, durationMs: number) => void)[] = [];
  /** Admission handlers of parts started after the manager (graceful node shutdown). */
  private readonly lateAdmitHandlers: ((pod: Pod) => AdmitResult)[] = [];

  constructor(opts: PodManagerOptions) {
    this.opts = opts;
    this.workers = new PodWorkers({
      syncPod: (pod) => opts.syncer.syncPod(pod),
      killPod: async (pod, grace) => {
        await opts.syncer.killPod(pod, grace);
        const key = fullName(pod);
        const t = this.terminating.get(key);
        if (t?.uid === pod.metadata.uid) {
          this.terminating.delete(key);
          t.resolve();
        }
      },
      clock: opts.clock,
      logger: opts.logger,
    });
    opts.runtime.onEvent((e) => {
      if (e.type === 'exited') this.resync(e.podUid);
    });
  }

  /** Sync one pod now (container exit, probe change). */
  resync(uid: string): void {
    const pod = this.desired.get(uid);
    if (pod && !this.rejected.has(uid) && this.nameFree(pod))
      this.workers.updatePod({ type: 'sync', pod });
  }

  handleUpdate(u: PodUpdate): void {
    for (const pod of u.pods) {
      const uid = pod.metadata.uid;
      switch (u.op) {
        case 'ADD':
        case 'UPDATE':
        case 'RECONCILE': {
          if (this.deletionRequested.has(uid) && pod.metadata.deletionTimestamp !== undefined) {
            // its own status coming back, or a shorter grace period: a kill again, never a sync
            if (u.op === 'UPDATE') this.kill(pod);
            break;
          }
          const prev = this.desired.get(uid);
          this.desired.set(uid, pod);
          if (prev === undefined && !this.admit(pod)) break;
          if (this.rejected.has(uid)) break;
          // a status-only change matters when it changes what the readiness gates read
          if (u.op !== 'RECONCILE' || gateConditionsChanged(prev, pod)) this.syncWhenNameFree(pod);
          break;
        }
        case 'DELETE':
        case 'REMOVE': {
          this.desired.delete(uid);
          if (u.op === 'DELETE') this.deletionRequested.add(uid);
          else this.deletionRequested.delete(uid);
          if (this.rejected.delete(uid)) {
            // with the newest object (its deletionTimestamp): the API deletion is confirmed
            this.opts.statuses.delete(uid, pod);
            break;
          }
          this.opts.logger.info(
            { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, uid, op: u.op },
            'pod removed from its source; terminating',
          );
          this.kill(pod);
          break;
        }
      }
    }
  }

  /** Tears the pod down with its deletion grace period (else the pod's). */
  private kill(pod: Pod): void {
    const uid = pod.metadata.uid;
    const grace = pod.metadata.deletionGracePeriodSeconds;
    // a postStart hook in flight gives way to the kill
    this.opts.syncer.interrupt(uid);
    if (!this.terminating.has(fullName(pod))) {
      let resolve: () => void = () => undefined;
      const done = new Promise<void>((r) => (resolve = r));
      this.terminating.set(fullName(pod), { uid, done, resolve });
    }
    this.workers.updatePod({
      type: 'kill',
      pod,
      ...(grace !== undefined ? { graceSeconds: grace } : {}),
    });
  }

  /** No other pod of the same name is still being terminated. */
  private nameFree(pod: Pod): boolean {
    const t = this.terminating.get(fullName(pod));
    return t === undefined || t.uid === pod.metadata.uid;
  }

  private syncWhenNameFree(pod: Pod): void {
    const t = this.terminating.get(fullName(pod));
    if (t === undefined || t.uid === pod.metadata.uid) {
      if (t !== undefined) {
        // re-added before its termination ran: the sync supersedes the kill
        this.terminating.delete(fullName(pod));
        t.resolve();
      }
      this.workers.updatePod({ type: 'sync', pod });
      return;
    }
    // wait for the old pod, but not forever: a kill that keeps failing must not block the new one
    const cap = (pod.spec.terminationGracePeriodSeconds ?? 30) * 1000 + 30_000;
    const ac = new AbortController();
    void Promise.race([t.done, this.opts.clock.sleep(cap, ac.signal).catch(() => undefined)]).then(
      () => {
        ac.abort();
        const latest = this.desired.get(pod.metadata.uid);
        if (latest && !this.rejected.has(pod.metadata.uid))
          this.workers.updatePod({ type: 'sync', pod: latest });
      },
    );
  }

  /** Adds an admission handler after construction (parts the services start). */
  addAdmitHandler(handler: (pod: Pod) => AdmitResult): void {
    this.lateAdmitHandlers.push(handler);
  }

  private admit(pod: Pod): boolean {
    const active = [...this.desired.keys()].filter(
      (k) => k !== pod.metadata.uid && !this.rejected.has(k) && !this.isTerminal(k),
    ).length;
    const problems = this.opts.validate?.(pod) ?? [];
    // in order, stopping at the first refusal: a later handler (the resource managers) allocates,
    // so the refusals that allocate nothing (graceful node shutdown) go first
    const refused =
      problems.length > 0
        ? undefined
        : firstRefusal([...this.lateAdmitHandlers, ...(this.opts.admitHandlers ?? [])], pod);
    const r =
      problems.length > 0
        ? {
            admit: false,
            reason: 'UnsupportedPod',
            message: `the pod cannot run on this node: ${problems.join('; ')}`,
          }
        : (refused ?? admitPod(active, this.opts.capacity));
    if (r.admit) return true;
    this.rejected.add(pod.metadata.uid);
    this.opts.logger.warn(
      { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, reason: r.reason },
      `pod rejected: ${r.message ?? ''}`,
    );
    const status: PodStatus = {
      phase: 'Failed',
      reason: r.reason ?? 'OutOfpods',
      message: `Pod was rejected: ${r.message ?? ''}`,
      conditions: [],
      containerStatuses: [],
    };
    this.opts.statuses.set(pod, status);
    return false;
  }

  private isTerminal(uid: string): boolean {
    const p = this.opts.statuses.status(uid)?.phase;
    return p === 'Succeeded' || p === 'Failed';
  }

  /** Starts the periodic resync and housekeeping; both end when `signal` aborts. */
  start(signal: AbortSignal): void {
    this.loops.push(
      this.every(this.opts.syncFrequencyMs, signal, () => {
        for (const [uid, pod] of this.desired)
          if (!this.rejected.has(uid) && this.nameFree(pod))
            this.workers.updatePod({ type: 'sync', pod });
        return Promise.resolve();
      }),
    );
    this.loops.push(
      this.every(this.opts.housekeepingMs ?? 2000, signal, () => this.housekeeping()),
    );
  }

  /** Called after each housekeeping pass (the sync-loop iteration) with its start and duration. */
  onHousekeeping(listener: (startedMs: number, durationMs: number) => void): void {
    this.housekeepingListeners.push(listener);
  }

  private async housekeeping(): Promise<void> {
    const t0 = this.opts.clock.nowMs();
    try {
      await this.cleanupOrphans();
    } finally {
      const took = this.opts.clock.nowMs() - t0;
      for (const l of this.housekeepingListeners) l(t0, took);
    }
  }

  private every(ms: number, signal: AbortSignal, fn: () => Promise<void>): Promise<void> {
    return runEvery({
      clock: this.opts.clock,
      ms,
      signal,
      run: fn,
      onError: (err) =>
        this.opts.logger.warn(
          { err: userMessage(err) },
          'sync loop: periodic task failed; will retry at the next period',
        ),
    });
  }

  /**
   * Kills containers of pods that no source asks for (left from before a restart), then removes
   * what the pods with no container left behind: cgroups, log directories, pod directories.
   */
  async cleanupOrphans(): Promise<void> {
    if (!this.opts.seenAllSources()) return;
    const containers = await this.opts.runtime.listContainers();
    const orphans = new Map<string, Pod>();
    for (const c of containers) {
      if (this.desired.has(c.podUid) || this.workers.isKnown(c.podUid) || orphans.has(c.podUid))
        continue;
      orphans.set(c.podUid, {
        metadata: { uid: c.podUid, name: c.podName, namespace: c.podNamespace },
        spec: { containers: [{ name: c.name || 'sandbox' }], terminationGracePeriodSeconds: 30 },
      });
    }
    for (const pod of orphans.values()) {
      this.opts.logger.info(
        { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, uid: pod.metadata.uid },
        'removing containers of a pod no source asks for',
      );
      this.workers.updatePod({ type: 'kill', pod });
    }
    const running = new Set(containers.map((c) => c.podUid));
    const keep = (uid: string): boolean =>
      this.desired.has(uid) || this.workers.isKnown(uid) || running.has(uid);
    await this.opts.cleanupOrphanCgroups?.(keep);
    await this.opts.cleanupOrphanPodLogs?.(keep);
    await this.opts.cleanupOrphanPodDirs?.(keep);
  }

  pods(): Pod[] {
    return this.opts.statuses.pods();
  }

  status(uid: string): PodStatus | undefined {
    return this.opts.statuses.status(uid);
  }

  desiredPods(): Pod[] {
    return [...this.desired.values()];
  }

  /**
   * One desired pod by UID, without copying the list (eviction asks this of every pod each pass).
   */
  desiredPod(uid: string): Pod | undefined {
    return this.desired.get(uid);
  }

  async stop(): Promise<void> {
    await Promise.all(this.loops);
    await this.workers.stop();
  }
}
