// The event recorder colleagues call: `recorder.event(obj, type, reason, message)` never blocks
// and never throws. Events wait in a queue of 1000 (dropped with a count when full); one worker
// correlates them (spam filter, aggregation, de-duplication), waits for the --event-qps /
// --event-burst bucket (0 means 5 / 10) and writes them, retrying a failed write up to 12 times
// 10 s apart. Names are `<object name>.<hex nanoseconds>`; source component `nodeagent`, host =
// the node name.

import { TokenBucket } from '../../../common/util/token-bucket.js';
import type { Logger } from '../../../common/log/types.js';
import type { Clock } from '../../../common/util/clock.js';
import {
  isAlreadyExists,
  isNotFound,
  userMessage,
  ApiError,
  findCause,
} from '../../../common/util/errors.js';
import { EventCorrelator } from './correlator.js';
import type { CoreEvent, EventSink, EventType, ObjectReference } from './types.js';

export const QUEUE_LENGTH = 1000;
export const MAX_TRIES = 12;
export const RETRY_SLEEP_MS = 10_000;
export const COMPONENT = 'nodeagent';

export interface EventRecorderOptions {
  sink: EventSink;
  clock: Clock;
  logger: Logger;
  /** The node name: the source host. */
  host: string;
  /**
   * The source component (the profile's: `nodeagent`, or `kubelet` under kubernetes); default
   * COMPONENT.
   */
  component?: string;
  /** --event-qps / --event-burst; 0 means 5 / 10. */
  qps: number;
  burst: number;
  queueLength?: number;
  /** Called for every dropped event (for a metric). */
  onDrop?: (reason: 'queue-full' | 'spam' | 'retries-exhausted' | 'rejected') => void;
}

export interface EventRecorderStats {
  queued: number;
  created: number;
  patched: number;
  droppedQueueFull: number;
  droppedSpam: number;
  droppedFailed: number;
}

/** `<name>.<hex nanoseconds>`, unique even for events in the same millisecond. */
export class EventNamer {
  private lastNs = 0n;
  private readonly clock: Clock;
  constructor(options: { clock: Clock }) {
    this.clock = options.clock;
  }
  name(objectName: string): string {
    let ns = BigInt(this.clock.nowMs()) * 1_000_000n;
    if (ns <= this.lastNs) ns = this.lastNs + 1n;
    this.lastNs = ns;
    return `${objectName}.${ns.toString(16)}`;
  }
}

function isPermanent(err: unknown): boolean {
  // The reference gives up at once on errors retrying cannot fix (bad request, forbidden ...).
  const api = findCause(err, (e): e is ApiError => e instanceof ApiError);
  return (
    api !== undefined &&
    api.status >= 400 &&
    api.status < 500 &&
    api.status !== 429 &&
    api.status !== 408
  );
}

export class EventRecorder {
  private readonly queue: CoreEvent[] = [];
  private readonly correlator: EventCorrelator;
  private readonly limiter: TokenBucket;
  private readonly namer: EventNamer;
  private readonly queueLength: number;
  private wake: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private lastDropLogMs = 0;
  readonly stats: EventRecorderStats = {
    queued: 0,
    created: 0,
    patched: 0,
    droppedQueueFull: 0,
    droppedSpam: 0,
    droppedFailed: 0,
  };

  constructor(private readonly o: EventRecorderOptions) {
    this.correlator = new EventCorrelator({ clock: o.clock });
    this.limiter = new TokenBucket({
      qps: o.qps > 0 ? o.qps : 5,
      burst: o.burst > 0 ? o.burst : 10,
      clock: o.clock,
    });
    this.namer = new EventNamer({ clock: o.clock });
    this.queueLength = o.queueLength ?? QUEUE_LENGTH;
  }

  /** Records an event about `obj`. Never blocks, never throws. */
  event(obj: ObjectReference, type: EventType, reason: string, message: string): void {
    if (this.queue.length >= this.queueLength) {
      this.stats.droppedQueueFull++;
      this.o.onDrop?.('queue-full');
      const now = this.o.clock.nowMs();
      if (now - this.lastDropLogMs > 10_000) {
        this.lastDropLogMs = now;
        this.o.logger.warn(
          { dropped: this.stats.droppedQueueFull, queue: this.queueLength },
          'event queue is full (API server slow or unreachable?); dropping events',
        );
      }
      return;
    }
    const ts = this.o.clock
      .now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
    const namespace =
      obj.namespace !== undefined && obj.namespace !== '' ? obj.namespace : 'default';
    this.queue.push({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: this.namer.name(obj.name), namespace },
      involvedObject: { ...obj },
      reason,
      message,
      source: { component: this.o.component ?? COMPONENT, host: this.o.host },
      firstTimestamp: ts,
      lastTimestamp: ts,
      count: 1,
      type,
      eventTime: null,
      reportingComponent: this.o.component ?? COMPONENT,
      reportingInstance: this.o.host,
    });
    this.stats.queued = this.queue.length;
    this.wake?.();
  }

  /** Starts the worker; it stops when `signal` aborts (queued events are then abandoned). */
  start(signal: AbortSignal): void {
    this.running ??= this.work(signal).catch((err: unknown) =>
      this.o.logger.error({ err: userMessage(err) }, 'event worker stopped'),
    );
  }

  /** Resolves when the worker has stopped. */
  stopped(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Resolves when the queue is empty and nothing is in flight, or when the worker stops. */
  drained(): Promise<void> {
    if (this.isDrained()) return Promise.resolve();
    return new Promise<void>((resolve) => this.drainWaiters.push(resolve));
  }

  private busy = false;
  private readonly drainWaiters: (() => void)[] = [];

  private isDrained(): boolean {
    return this.queue.length === 0 && !this.busy;
  }

  private notifyDrained(): void {
    if (!this.isDrained()) return;
    for (const w of this.drainWaiters.splice(0)) w();
  }

  private async work(signal: AbortSignal): Promise<void> {
    const onAbort = (): void => this.wake?.();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      while (!signal.aborted) {
        const next = this.queue.shift();
        this.stats.queued = this.queue.length;
        if (next === undefined) {
          this.notifyDrained();
          await new Promise<void>((resolve) => {
            this.wake = resolve;
          });
          this.wake = undefined;
          continue;
        }
        this.busy = true;
        try {
          await this.write(next, signal);
        } finally {
          this.busy = false;
        }
        this.notifyDrained();
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      // A stopped worker writes nothing more: whoever waits for a drain is released.
      for (const w of this.drainWaiters.splice(0)) w();
    }
  }

  private async write(input: CoreEvent, signal: AbortSignal): Promise<void> {
    const c = this.correlator.correlate(input);
    if (c.action === 'drop') {
      this.stats.droppedSpam++;
      this.o.onDrop?.('spam');
      return;
    }
    for (let attempt = 1; attempt <= MAX_TRIES; attempt++) {
      try {
        await this.limiter.acquire(signal);
        if (c.action === 'patch') {
          try {
            await this.o.sink.patch(
              c.event.metadata.namespace,
              c.event.metadata.name,
              c.patch,
              signal,
            );
            this.stats.patched++;
            return;
          } catch (err) {
            if (!isNotFound(err)) throw err;
            // The event expired on the server: create it again.
          }
        }
        await this.o.sink.create(c.event.metadata.namespace, c.event, signal);
        this.stats.created++;
        return;
      } catch (err) {
        if (signal.aborted) return;
        if (isAlreadyExists(err)) return;
        if (isPermanent(err)) {
          this.stats.droppedFailed++;
          this.o.onDrop?.('rejected');
          this.o.logger.warn(
            { reason: c.event.reason, object: c.event.involvedObject.name, err: userMessage(err) },
            'server rejected event (will not retry)',
          );
          return;
        }
        if (attempt === MAX_TRIES) break;
        this.o.logger.debug(
          { attempt, err: userMessage(err) },
          'cannot write event; retrying in 10s',
        );
        try {
          await this.o.clock.sleep(RETRY_SLEEP_MS, signal);
        } catch {
          return;
        }
      }
    }
    this.stats.droppedFailed++;
    this.o.onDrop?.('retries-exhausted');
    this.o.logger.warn(
      { reason: c.event.reason, object: c.event.involvedObject.name, tries: MAX_TRIES },
      'unable to write event; gave up after 12 tries (is the API server reachable?)',
    );
  }
}
