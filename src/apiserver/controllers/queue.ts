// A small work queue for controllers: keys are de-duplicated while waiting, processed one at a
// time, and re-queued with exponential back-off (on the injected clock) when processing fails.

import { setMaxListeners } from 'node:events';
import type { Clock } from '../../common/util/clock.js';
import { backoffDelayMs } from '../../common/util/backoff.js';
import type { Logger } from '../../common/log/types.js';

export interface WorkQueueOptions {
  readonly name: string;
  readonly process: (key: string) => Promise<void>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
}

export class WorkQueue {
  private readonly o: WorkQueueOptions;
  private readonly pending = new Set<string>();
  private readonly order: string[] = [];
  private readonly failures = new Map<string, number>();
  /** Aborts the back-off sleeps when the queue stops. */
  private readonly backoffs = new AbortController();
  private wake: (() => void) | undefined;
  private stopped = false;

  constructor(o: WorkQueueOptions) {
    this.o = o;
    // One listener per key waiting out its back-off.
    setMaxListeners(0, this.backoffs.signal);
  }

  add(key: string): void {
    if (this.stopped || this.pending.has(key)) return;
    this.pending.add(key);
    this.order.push(key);
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  private addAfter(key: string, ms: number): void {
    this.o.clock.sleep(ms, this.backoffs.signal).then(
      () => this.add(key),
      () => undefined, // the queue stopped
    );
  }

  /** Runs until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = (): void => {
      this.stopped = true;
      this.backoffs.abort();
      const w = this.wake;
      this.wake = undefined;
      w?.();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    while (!this.stopped) {
      const key = this.order.shift();
      if (key === undefined) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      this.pending.delete(key);
      try {
        await this.o.process(key);
        this.failures.delete(key);
      } catch (err) {
        const n = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, n);
        const delay = backoffDelayMs(
          { initialMs: this.o.baseDelayMs ?? 100, maxMs: this.o.maxDelayMs ?? 30_000 },
          n - 1,
        );
        this.o.logger.warn(
          { err, key, attempt: n, retryInMs: delay },
          `${this.o.name}: processing failed; will retry`,
        );
        this.addAfter(key, delay);
      }
    }
  }
}
