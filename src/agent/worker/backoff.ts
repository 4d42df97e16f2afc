// Crash-loop back-off per container: the first restart is immediate, then 10 s doubling to
// 5 minutes; a container that ran for 10 minutes starts over from the beginning.
import type { Clock } from '../../common/util/clock.js';
import { backoffDelayMs } from '../../common/util/backoff.js';

/**
 * How soon a pod whose sync failed is synced again (the reference's pod worker back-off): a
 * container whose config could not be made, an image that could not be pulled. An image's own
 * back-off is longer after a few failures, so a sync inside it shows ImagePullBackOff.
 */
export const WORKER_RETRY_MS = 10_000;

export interface BackoffOptions {
  clock: Clock;
  initialMs?: number;
  maxMs?: number;
  /** A container that ran at least this long resets its back-off. */
  resetAfterRunMs?: number;
}

interface Entry {
  /** Attempts recorded since the last reset. */
  attempts: number;
  lastMs: number;
  /** What the last attempt ended with, for messages during the back-off. */
  note?: string;
}

export class Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly resetAfterRunMs: number;
  private readonly clock: Clock;
  private readonly entries = new Map<string, Entry>();

  constructor(opts: BackoffOptions) {
    this.clock = opts.clock;
    this.initialMs = opts.initialMs ?? 10_000;
    this.maxMs = opts.maxMs ?? 300_000;
    this.resetAfterRunMs = opts.resetAfterRunMs ?? 600_000;
  }

  /** Milliseconds to wait before the next attempt is allowed; 0 means go now. */
  remainingMs(key: string): number {
    const e = this.entries.get(key);
    if (!e) return 0;
    return Math.max(0, e.lastMs + this.delayOf(e) - this.clock.nowMs());
  }

  /** The current delay (for messages), 0 when none is recorded. */
  delayMs(key: string): number {
    const e = this.entries.get(key);
    return e ? this.delayOf(e) : 0;
  }

  private delayOf(e: Entry): number {
    return backoffDelayMs({ initialMs: this.initialMs, maxMs: this.maxMs }, e.attempts - 1);
  }

  /**
   * Record an attempt now: the next one waits the initial delay, or double the last one. `note`
   * says what the attempt ended with, until the next attempt or a reset.
   */
  next(key: string, note?: string): void {
    const e = this.entries.get(key);
    const entry: Entry = { attempts: (e?.attempts ?? 0) + 1, lastMs: this.clock.nowMs() };
    if (note !== undefined) entry.note = note;
    this.entries.set(key, entry);
  }

  /** The note of the key's last attempt, if it left one. */
  noteOf(key: string): string | undefined {
    return this.entries.get(key)?.note;
  }

  reset(key: string): void {
    this.entries.delete(key);
  }

  /** Forget every key starting with `prefix` (a pod's containers when the pod goes away). */
  forgetPrefix(prefix: string): void {
    for (const k of [...this.entries.keys()]) if (k.startsWith(prefix)) this.entries.delete(k);
  }
}
