// A Clock whose time moves only when a test says so. Sleepers wake in deadline order when
// `advance` passes their deadline; `waitForSleepers(n)` lets a test wait until the code under
// test is parked in a sleep before moving time.
import type { Clock } from '../../src/common/util/clock.js';

interface Sleeper {
  at: number;
  resolve: () => void;
}

export class ManualClock implements Clock {
  private ms: number;
  private sleepers: Sleeper[] = [];
  private waiters: { n: number; resolve: () => void }[] = [];
  /** One-shot timers (deadlines, idle timeouts): not sleepers, so waitForSleepers ignores them. */
  private timers: { at: number; fn: () => void }[] = [];
  /** Every sleep requested, in ms, for assertions on back-off schedules. */
  readonly sleeps: number[] = [];

  constructor(start: Date | number = Date.UTC(2026, 0, 1)) {
    this.ms = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.ms);
  }

  nowMs(): number {
    return this.ms;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const s: Sleeper = {
        at: this.ms + ms,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.sleepers = this.sleepers.filter((x) => x !== s);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sleepers.push(s);
      this.notify();
    });
  }

  setTimer(ms: number, fn: () => void): () => void {
    const t = { at: this.ms + ms, fn };
    this.timers.push(t);
    return () => {
      this.timers = this.timers.filter((x) => x !== t);
    };
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  get pendingSleepers(): number {
    return this.sleepers.length;
  }

  /** Resolves once at least `n` sleeps are pending. */
  waitForSleepers(n = 1): Promise<void> {
    if (this.sleepers.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }

  private notify(): void {
    this.waiters = this.waiters.filter((w) => {
      if (this.sleepers.length >= w.n) {
        w.resolve();
        return false;
      }
      return true;
    });
  }

  /** Moves time forward, waking every sleeper whose deadline has come. */
  advance(ms: number): void {
    this.ms += ms;
    const due = this.sleepers.filter((s) => s.at <= this.ms).sort((a, b) => a.at - b.at);
    this.sleepers = this.sleepers.filter((s) => s.at > this.ms);
    const dueTimers = this.timers.filter((t) => t.at <= this.ms).sort((a, b) => a.at - b.at);
    this.timers = this.timers.filter((t) => t.at > this.ms);
    for (const s of due) s.resolve();
    for (const t of dueTimers) t.fn();
  }

  set(ms: number): void {
    this.advance(Math.max(0, ms - this.ms));
  }
}
