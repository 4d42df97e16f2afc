// Graceful node shutdown, as the reference's node shutdown manager (pkg/kubelet/nodeshutdown,
// Kubernetes 1.32): at start, raise logind's InhibitDelayMaxSec when it is below the sum of the
// grace periods, take a "delay" inhibitor lock and watch PrepareForShutdown. On
// PrepareForShutdown(true) the node reports NotReady ("node is shutting down"), new pods are
// refused, and the running pods are killed group by group, lowest priority first (critical pods
// last), each group within its grace period; then the lock is released so the shutdown goes on.
// PrepareForShutdown(false) (a cancelled shutdown) takes the lock again. When the bus goes
// away, the watch starts again after 1 s.
import type { Clock } from '../../../common/util/clock.js';
import { userMessage } from '../../../common/util/errors.js';
import type { Logger } from '../../../common/log/types.js';
import {
  groupByPriority,
  periodRequestedMs,
  type PodGroup,
  type PriorityGracePeriod,
} from './groups.js';
import type { ShutdownTimes } from './state.js';

/** The reference's answers (nodeshutdown_manager.go and the Ready condition's error). */
export const NODE_SHUTDOWN_REASON = 'Terminated';
export const NODE_SHUTDOWN_MESSAGE = 'Pod was terminated in response to imminent node shutdown.';
export const NODE_SHUTDOWN_NOT_ADMITTED_REASON = 'NodeShutdown';
export const NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE = 'Pod was rejected as the node is shutting down.';
export const NODE_SHUTTING_DOWN = 'node is shutting down';
const DBUS_RECONNECT_PERIOD_MS = 1000;

/** logind as this manager uses it (logind.ts over D-Bus; tests may give another). */
export interface ShutdownInhibiter {
  currentInhibitDelayMs(): Promise<number>;
  /** Takes the lock: its file descriptor. */
  inhibitShutdown(): Promise<number>;
  releaseInhibitLock(fd: number): void;
  reloadLogindConf(): Promise<void>;
  monitorShutdown(onEvent: (shuttingDown: boolean) => void, onClose: () => void): void;
  close(): void;
}

export interface ShutdownPod {
  uid: string;
  namespace: string;
  name: string;
  priority: number;
  terminationGracePeriodSeconds?: number;
}

export interface ShutdownPods {
  activePods(): ShutdownPod[];
  /** Stops the pod within the grace period and marks it Failed with the reference's reason. */
  terminate(pod: ShutdownPod, gracePeriodSeconds: number): Promise<void>;
}

export interface NodeShutdownManagerOptions {
  /** Sorted low to high (groups.ts shutdownGroups); never empty. */
  groups: PriorityGracePeriod[];
  connect(): Promise<ShutdownInhibiter>;
  /** Writes the logind drop-in raising InhibitDelayMaxSec. */
  overrideInhibitDelay(delayMs: number): Promise<void>;
  pods: ShutdownPods;
  /** A node event (reason NodeShutdown). */
  event(message: string): void;
  /** The last shutdown's start and end (graceful_node_shutdown_state). */
  state?: { load(): Promise<ShutdownTimes>; store(t: ShutdownTimes): Promise<void> };
  /** The graceful_shutdown_{start,end}_time_seconds gauges (seconds since the epoch, 0: none). */
  times?: { start(seconds: number): void; end(seconds: number): void };
  clock: Clock;
  logger: Logger;
}

export class NodeShutdownManager {
  private bus: ShutdownInhibiter | undefined;
  private lock: number | undefined;
  private shuttingDown = false;
  private queue: Promise<void> = Promise.resolve();
  /** Asks the node status to be sent now (set by the node status part when there is one). */
  syncNodeStatus: (() => void) | undefined;

  constructor(private readonly o: NodeShutdownManagerOptions) {}

  /** The reason the node is not ready, while it shuts down. */
  shutdownStatus(): string | undefined {
    return this.shuttingDown ? NODE_SHUTTING_DOWN : undefined;
  }

  /** Pods arriving while the node shuts down are refused, as the reference. */
  admit(): { admit: boolean; reason?: string; message?: string } {
    return this.shuttingDown
      ? {
          admit: false,
          reason: NODE_SHUTDOWN_NOT_ADMITTED_REASON,
          message: NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE,
        }
      : { admit: true };
  }

  /**
   * Takes the lock and watches; rejects when the first start fails. Restarts after the bus drops.
   */
  async start(signal: AbortSignal): Promise<void> {
    signal.addEventListener('abort', () => this.stop(), { once: true });
    await this.startOnce(signal);
    await this.loadTimes();
  }

  /** The reference's setMetrics: the gauges from the stored state. */
  private async loadTimes(): Promise<void> {
    try {
      const t = (await this.o.state?.load()) ?? {};
      if (t.startMs !== undefined) this.o.times?.start(Math.floor(t.startMs / 1000));
      if (t.endMs !== undefined) this.o.times?.end(Math.floor(t.endMs / 1000));
    } catch (err) {
      this.o.logger.error({ err: userMessage(err) }, 'Failed to load graceful shutdown state');
    }
  }

  private async storeTimes(t: ShutdownTimes): Promise<void> {
    await this.o.state
      ?.store(t)
      .catch((err: unknown) =>
        this.o.logger.error({ err: userMessage(err) }, 'Failed to store graceful shutdown state'),
      );
  }

  /** Releases the lock and leaves the bus. */
  stop(): void {
    if (this.lock !== undefined) this.bus?.releaseInhibitLock(this.lock);
    this.lock = undefined;
    this.bus?.close();
    this.bus = undefined;
  }

  /** What the shutdown event handling has left to do (for tests and stop). */
  idle(): Promise<void> {
    return this.queue;
  }

  private async restart(signal: AbortSignal): Promise<void> {
    let failures = 0;
    for (;;) {
      // An aborted signal ends the sleep at once.
      await this.o.clock.sleep(DBUS_RECONNECT_PERIOD_MS, signal).catch(() => undefined);
      if (signal.aborted) return;
      this.o.logger.debug({}, 'Restarting watch for node shutdown events');
      try {
        await this.startOnce(signal);
        return;
      } catch (err) {
        if (failures++ === 0)
          this.o.logger.error(
            { err: userMessage(err) },
            'Unable to watch the node for shutdown events; retrying every second',
          );
      }
    }
  }

  private async startOnce(signal: AbortSignal): Promise<void> {
    this.stop();
    const bus = await this.o.connect();
    try {
      await this.raiseInhibitDelay(bus);
      this.bus = bus;
      await this.acquireInhibitLock();
    } catch (err) {
      if (this.bus === bus) this.stop();
      else bus.close();
      throw err;
    }
    bus.monitorShutdown(
      (active) => this.enqueue(active),
      () => {
        if (signal.aborted || this.bus !== bus) return;
        this.o.logger.error({}, 'Ended to watching the node for shutdown events');
        void this.restart(signal);
      },
    );
    this.o.logger.info(
      { groups: this.o.groups, lockFd: this.lock },
      'Watching the node for shutdown events: systemd-logind delay inhibitor lock taken',
    );
  }

  private async raiseInhibitDelay(bus: ShutdownInhibiter): Promise<void> {
    const requested = periodRequestedMs(this.o.groups);
    const current = await bus.currentInhibitDelayMs();
    if (requested <= current) return;
    try {
      await this.o.overrideInhibitDelay(requested);
    } catch (err) {
      throw new Error(`unable to override inhibit delay by shutdown manager: ${userMessage(err)}`, {
        cause: err,
      });
    }
    await bus.reloadLogindConf();
    const updated = await bus.currentInhibitDelayMs();
    if (requested > updated) {
      throw new Error(
        `node shutdown manager was unable to update logind InhibitDelayMaxSec to ` +
          `${requested / 1000}s (ShutdownGracePeriod), current value of InhibitDelayMaxSec ` +
          `(${updated / 1000}s) is less than requested ShutdownGracePeriod`,
      );
    }
  }

  private async acquireInhibitLock(): Promise<void> {
    if (this.bus === undefined) return;
    const fd = await this.bus.inhibitShutdown();
    if (this.lock !== undefined) this.bus.releaseInhibitLock(this.lock);
    this.lock = fd;
  }

  private enqueue(active: boolean): void {
    this.queue = this.queue
      .then(() => this.onEvent(active))
      .catch((err: unknown) => {
        this.o.logger.error({ err: userMessage(err) }, 'node shutdown event handling failed');
      });
  }

  private async onEvent(active: boolean): Promise<void> {
    this.o.logger.info(
      { event: active ? 'shutdown' : 'cancelled' },
      'Shutdown manager detected new shutdown event',
    );
    this.o.event(
      active
        ? 'Shutdown manager detected shutdown event'
        : 'Shutdown manager detected shutdown cancellation',
    );
    this.shuttingDown = active;
    if (!active) {
      await this.acquireInhibitLock();
      return;
    }
    this.syncNodeStatus?.();
    const startMs = this.o.clock.nowMs();
    await this.storeTimes({ startMs });
    this.o.times?.start(Math.floor(startMs / 1000));
    this.o.times?.end(0);
    try {
      await this.killPods();
    } finally {
      const endMs = this.o.clock.nowMs();
      await this.storeTimes({ startMs, endMs });
      this.o.times?.end(Math.floor(endMs / 1000));
      if (this.lock !== undefined) this.bus?.releaseInhibitLock(this.lock);
      this.lock = undefined;
      this.o.logger.info(
        {},
        'Shutdown manager completed processing shutdown event, node will shutdown shortly',
      );
    }
  }

  private async killPods(): Promise<void> {
    const groups = groupByPriority(this.o.groups, this.o.pods.activePods(), (p) => p.priority);
    for (const group of groups) {
      if (group.pods.length > 0) await this.killGroup(group);
    }
  }

  /** Kills a group's pods at once and waits for them, at most the group's grace period. */
  private async killGroup(group: PodGroup<ShutdownPod>): Promise<void> {
    const kills = group.pods.map(async (pod) => {
      const grace =
        pod.terminationGracePeriodSeconds !== undefined &&
        pod.terminationGracePeriodSeconds <= group.shutdownGracePeriodSeconds
          ? pod.terminationGracePeriodSeconds
          : group.shutdownGracePeriodSeconds;
      this.o.logger.info(
        { pod: `${pod.namespace}/${pod.name}`, gracePeriod: grace },
        'Shutdown manager killing pod with gracePeriod',
      );
      try {
        await this.o.pods.terminate(pod, grace);
        this.o.logger.info(
          { pod: `${pod.namespace}/${pod.name}` },
          'Shutdown manager finished killing pod',
        );
      } catch (err) {
        this.o.logger.warn(
          { pod: `${pod.namespace}/${pod.name}`, err: userMessage(err) },
          'Shutdown manager failed killing pod',
        );
      }
    });
    const stop = new AbortController();
    const timedOut = this.o.clock.sleep(group.shutdownGracePeriodSeconds * 1000, stop.signal).then(
      () => true,
      () => false,
    );
    const out = await Promise.race([Promise.all(kills).then(() => false), timedOut]);
    stop.abort();
    if (out)
      this.o.logger.info(
        { gracePeriod: group.shutdownGracePeriodSeconds, priority: group.priority },
        'Shutdown manager pod killing time out',
      );
  }
}
