// A small work queue for controllers: keys are de-duplicated while waiting, processed one at a
// time, and re-queued with exponential back-off when processing fails.

import type { Clock } from '../../common/util/clock.js';
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
  private readonly timers = new Set<NodeJS.Timeout>();
  private wake: (() => void) | undefined;
  private stopped = false;

  constructor(o: WorkQueueOptions) {
    this.o = o;
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
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.add(key);
    }, ms);
    this.timers.add(t);
  }

  /** Runs until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = (): void => {
      this.stopped = true;
      for (const t of this.timers) clearTimeout(t);
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
        const delay = Math.min(this.o.maxDelayMs ?? 30_000, (this.o.baseDelayMs ?? 100) * 2 ** (n - 1));
        this.o.logger.warn({ err, key, attempt: n, retryInMs: delay }, `${this.o.name}: processing failed; will retry`);
        this.addAfter(key, delay);
      }
    }
  }
}
