// The eviction manager: every monitoring interval it observes the signals, decides which
// thresholds are met (a threshold that was met stays met until its minimum reclaim is recovered),
// derives the pressure conditions (kept for the pressure transition period after the last time a
// threshold was met, so a node does not flap), and when a hard threshold is met, or a soft one has
// held for its grace period, evicts one pod: lowest priority first, then the largest user of the
// starved resource. Critical pods are never evicted.

import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { userMessage } from '../../common/util/errors.js';
import type { Observations, SignalObservation, SignalObserver } from './observer.js';
import { thresholdAmount, type Signal, type Threshold } from './thresholds.js';

export type PressureCondition = 'MemoryPressure' | 'DiskPressure' | 'PIDPressure';
export type StarvedResource = 'memory' | 'ephemeral-storage' | 'pids';

const SIGNAL_CONDITION: Readonly<Record<Signal, PressureCondition>> = {
  'memory.available': 'MemoryPressure',
  'allocatableMemory.available': 'MemoryPressure',
  'containerfs.available': 'DiskPressure',
  'containerfs.inodesFree': 'DiskPressure',
  'nodefs.available': 'DiskPressure',
  'nodefs.inodesFree': 'DiskPressure',
  'imagefs.available': 'DiskPressure',
  'imagefs.inodesFree': 'DiskPressure',
  'pid.available': 'PIDPressure',
};

const SIGNAL_RESOURCE: Readonly<Record<Signal, StarvedResource>> = {
  'memory.available': 'memory',
  'allocatableMemory.available': 'memory',
  'containerfs.available': 'ephemeral-storage',
  'containerfs.inodesFree': 'ephemeral-storage',
  'nodefs.available': 'ephemeral-storage',
  'nodefs.inodesFree': 'ephemeral-storage',
  'imagefs.available': 'ephemeral-storage',
  'imagefs.inodesFree': 'ephemeral-storage',
  'pid.available': 'pids',
};

export interface EvictionCandidate {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  /** spec.priority; 0 when unset. */
  readonly priority: number;
  /** The pod's own terminationGracePeriodSeconds. */
  readonly gracePeriodSeconds: number;
  readonly usage?: Partial<Record<StarvedResource, number>>;
  /** Static, mirror or system-critical pods are never evicted. */
  readonly critical?: boolean;
}

export interface EvictablePods {
  candidates(): readonly EvictionCandidate[];
  /** Refreshes usage figures before ranking (best effort). */
  refresh?(): Promise<void>;
  /** Stops the pod and marks it Failed with reason Evicted. */
  evict(
    pod: EvictionCandidate,
    options: { gracePeriodSeconds: number; message: string },
  ): Promise<void>;
}

/** Pods over their local storage limits (--local-storage-capacity-isolation; local-storage.ts). */
export interface LocalStorageLimits {
  /** Each pod over a limit, with the reference's eviction message. */
  violations(): Promise<readonly { pod: EvictionCandidate; message: string }[]>;
}

/** Where eviction events go (the node part's EventRecorder satisfies it; never blocks). */
export interface EvictionEventSink {
  event(
    obj: { kind: string; namespace?: string; name: string; uid?: string },
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): void;
}

export interface EvictionManagerOptions {
  thresholds: readonly Threshold[];
  observer: SignalObserver;
  pods: EvictablePods;
  clock: Clock;
  logger: Logger;
  /** --eviction-pressure-transition-period. */
  pressureTransitionPeriodMs: number;
  /** --eviction-max-pod-grace-period: negative means the pod's own value. */
  maxPodGracePeriodSeconds: number;
  /** Default 10 s, as the reference. */
  monitoringIntervalMs?: number;
  events?: EvictionEventSink;
  nodeName?: string;
  /** How long one eviction may take before the loop moves on. Default 30 s. */
  evictionTimeoutMs?: number;
  /** Local storage limits to enforce each pass, before the thresholds; undefined: not enforced. */
  localStorage?: LocalStorageLimits;
}

/** The reference evicts for a hard threshold with one second of grace. */
const IMMEDIATE_GRACE_SECONDS = 1;

function fmt(signal: Signal, n: number): string {
  if (signal.endsWith('inodesFree') || signal === 'pid.available') return String(Math.round(n));
  return `${Math.round(n / 1024)}Ki`;
}

/**
 * The threshold to act on: met past its grace period (hard ones at once); memory first, then the
 * others in declaration order; hard before soft.
 */
function firstActionable(
  met: readonly Threshold[],
  firstObserved: ReadonlyMap<Threshold, number>,
  now: number,
): Threshold | undefined {
  const actionable = met.filter(
    (t) => t.hard || now - (firstObserved.get(t) ?? now) >= t.gracePeriodMs,
  );
  actionable.sort(
    (a, b) =>
      Number(b.hard) - Number(a.hard) ||
      Number(SIGNAL_RESOURCE[b.signal] === 'memory') -
        Number(SIGNAL_RESOURCE[a.signal] === 'memory'),
  );
  return actionable[0];
}

/** A hard threshold evicts at once; a soft one gives the pod's own grace, capped by the flag. */
function gracePeriod(
  threshold: Threshold,
  victim: EvictionCandidate,
  maxPodGracePeriodSeconds: number,
): number {
  if (threshold.hard) return IMMEDIATE_GRACE_SECONDS;
  return maxPodGracePeriodSeconds < 0
    ? victim.gracePeriodSeconds
    : Math.min(victim.gracePeriodSeconds, maxPodGracePeriodSeconds);
}

export class EvictionManager {
  private readonly firstObserved = new Map<Threshold, number>();
  private readonly metLastTime = new Set<Threshold>();
  private readonly conditionLastObserved = new Map<PressureCondition, number>();
  private last: Observations = new Map();
  /** Evictions done since start (for tests and metrics). */
  evictions = 0;
  /** Ends the wait between passes early (wake); set while run() waits. */
  private waiting: AbortController | undefined;
  private wakePending = false;

  constructor(private readonly options: EvictionManagerOptions) {}

  /** The pressure conditions currently in force. */
  conditions(): ReadonlySet<PressureCondition> {
    const now = this.options.clock.nowMs();
    const out = new Set<PressureCondition>();
    for (const [c, at] of this.conditionLastObserved)
      if (now - at < this.options.pressureTransitionPeriodMs) out.add(c);
    return out;
  }

  observations(): Observations {
    return this.last;
  }

  /** One pass: observe, update conditions, evict at most one pod. Returns the evicted pod. */
  async synchronize(): Promise<EvictionCandidate | undefined> {
    const now = this.options.clock.nowMs();
    const obs = await this.options.observer.observe();
    this.last = obs;
    const met = this.metThresholds(obs);
    this.recordMet(met, now);
    // As the reference: pods over their local storage limits go first, and then nothing else this
    // pass.
    const overLimit = await this.localStorageEviction();
    if (overLimit !== undefined) return overLimit;
    const threshold = firstActionable(met, this.firstObserved, now);
    // A met threshold was met on an observation of its signal.
    const ob = threshold === undefined ? undefined : obs.get(threshold.signal);
    if (threshold === undefined || ob === undefined) return undefined;
    return this.reclaim(threshold, ob);
  }

  /** The thresholds `obs` meets; one met last pass must also reclaim its minimum. */
  private metThresholds(obs: Observations): Threshold[] {
    return this.options.thresholds.filter((t) => {
      const ob = obs.get(t.signal);
      if (ob === undefined) return false;
      let amount = thresholdAmount(t.value, ob.capacity);
      if (this.metLastTime.has(t) && t.minReclaim !== undefined)
        amount += thresholdAmount(t.minReclaim, ob.capacity);
      return ob.available < amount;
    });
  }

  /** Remembers what was met, since when, and the pressure conditions it sets. */
  private recordMet(met: readonly Threshold[], now: number): void {
    this.metLastTime.clear();
    for (const t of met) {
      this.metLastTime.add(t);
      if (!this.firstObserved.has(t)) this.firstObserved.set(t, now);
      this.conditionLastObserved.set(SIGNAL_CONDITION[t.signal], now);
    }
    for (const t of [...this.firstObserved.keys()])
      if (!met.includes(t)) this.firstObserved.delete(t);
  }

  /** Evicts one pod to reclaim what `threshold` measures; undefined when no pod may go. */
  private async reclaim(
    threshold: Threshold,
    ob: SignalObservation,
  ): Promise<EvictionCandidate | undefined> {
    const o = this.options;
    const resource = SIGNAL_RESOURCE[threshold.signal];
    const message =
      `The node was low on resource: ${resource}. Threshold quantity: ` +
      `${fmt(threshold.signal, thresholdAmount(threshold.value, ob.capacity))}, available: ` +
      `${fmt(threshold.signal, ob.available)}.`;
    o.events?.event(
      { kind: 'Node', name: o.nodeName ?? '', uid: o.nodeName ?? '' },
      'Warning',
      'EvictionThresholdMet',
      `Attempting to reclaim ${resource}`,
    );
    const victim = await this.victimFor(resource);
    if (victim === undefined) {
      o.logger.warn(
        { signal: threshold.signal, message },
        'eviction threshold met but no pod can be evicted (only critical pods run); ' +
          'free resources on the node',
      );
      return undefined;
    }
    const grace = gracePeriod(threshold, victim, o.maxPodGracePeriodSeconds);
    o.logger.warn(
      {
        pod: `${victim.namespace}/${victim.name}`,
        signal: threshold.signal,
        hard: threshold.hard,
        gracePeriodSeconds: grace,
      },
      `evicting pod: ${message}`,
    );
    await this.evictNow(victim, grace, message);
    return victim;
  }

  /** The pod to evict first: not critical, lowest priority, then the largest user of `resource`. */
  private async victimFor(resource: StarvedResource): Promise<EvictionCandidate | undefined> {
    await this.options.pods.refresh?.().catch(() => undefined);
    return this.options.pods
      .candidates()
      .filter((p) => p.critical !== true)
      .slice()
      .sort(
        (a, b) =>
          a.priority - b.priority || (b.usage?.[resource] ?? 0) - (a.usage?.[resource] ?? 0),
      )[0];
  }

  /** Evicts every pod over a local storage limit (grace 0); returns the first, or undefined. */
  private async localStorageEviction(): Promise<EvictionCandidate | undefined> {
    const o = this.options;
    if (o.localStorage === undefined) return undefined;
    let first: EvictionCandidate | undefined;
    for (const { pod, message } of await o.localStorage.violations()) {
      if (pod.critical === true) {
        o.logger.error(
          { pod: `${pod.namespace}/${pod.name}`, message },
          'Eviction manager: cannot evict a critical pod',
        );
        continue;
      }
      o.logger.warn(
        { pod: `${pod.namespace}/${pod.name}`, gracePeriodSeconds: 0 },
        `evicting pod over its local storage limit: ${message}`,
      );
      if (await this.evictNow(pod, 0, message)) first ??= pod;
    }
    return first;
  }

  /** Records the event and evicts the pod within the eviction timeout; false when it failed. */
  private async evictNow(
    victim: EvictionCandidate,
    grace: number,
    message: string,
  ): Promise<boolean> {
    const o = this.options;
    o.events?.event(
      { kind: 'Pod', namespace: victim.namespace, name: victim.name, uid: victim.uid },
      'Warning',
      'Evicted',
      message,
    );
    const timeout = new AbortController();
    try {
      await Promise.race([
        o.pods.evict(victim, { gracePeriodSeconds: grace, message }),
        o.clock.sleep(o.evictionTimeoutMs ?? 30_000, timeout.signal).then(() => {
          throw new Error('eviction did not finish in time');
        }),
      ]);
      this.evictions++;
      return true;
    } catch (err) {
      o.logger.error(
        { pod: `${victim.namespace}/${victim.name}`, err: userMessage(err) },
        'eviction of the pod failed; will retry at the next interval',
      );
      return false;
    } finally {
      timeout.abort();
    }
  }

  /**
   * Runs the next pass at once instead of at the end of the interval (--kernel-memcg-notification:
   * a memory notification); a wake during a pass runs one more pass right after it.
   */
  wake(reason: string): void {
    this.options.logger.info({ reason }, reason);
    this.wakePending = true;
    this.waiting?.abort();
  }

  /** Runs until `signal` aborts; a failing pass is logged and retried at the next interval. */
  async run(signal: AbortSignal): Promise<void> {
    const interval = this.options.monitoringIntervalMs ?? 10_000;
    while (!signal.aborted) {
      this.wakePending = false;
      try {
        await this.synchronize();
      } catch (err) {
        this.options.logger.error(
          { err: userMessage(err) },
          'eviction manager pass failed (cannot observe signals?); retrying at the next interval',
        );
      }
      // Wake() sets it while synchronize() is awaited.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (this.wakePending) continue;
      this.waiting = new AbortController();
      await this.options.clock
        .sleep(interval, AbortSignal.any([signal, this.waiting.signal]))
        .catch(() => undefined);
      this.waiting = undefined;
    }
  }
}
