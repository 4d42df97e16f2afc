// A token bucket: `qps` tokens a second up to `burst`, starting full (as the reference's
// flowcontrol limiters). The agent's API client waits on it (acquire); plat-apiserver's
// EventRateLimit admission only asks (tryAcquire). Waiting goes through the injected Clock so
// tests control time, and through an AbortSignal so a stopping program is not held up by it.
import type { Clock } from './clock.js';

export interface TokenBucketOptions {
  qps: number;
  burst: number;
  clock: Clock;
}

export class TokenBucket {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private last: number;
  /** Tokens are handed out in arrival order: a waiter reserves its token before sleeping. */
  constructor(options: TokenBucketOptions) {
    if (!(options.qps > 0) || !(options.burst >= 1))
      throw new RangeError(
        `token bucket needs qps > 0 and burst >= 1, got ${options.qps}/${options.burst}`,
      );
    this.qps = options.qps;
    this.burst = options.burst;
    this.clock = options.clock;
    this.tokens = options.burst;
    this.last = options.clock.nowMs();
  }

  private refill(): void {
    const now = this.clock.nowMs();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
  }

  /** Takes a token without waiting; false when none is left. */
  tryAcquire(): boolean {
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.refill();
    this.tokens -= 1;
    if (this.tokens >= 0) return;
    const waitMs = Math.ceil((-this.tokens / this.qps) * 1000);
    try {
      await this.clock.sleep(waitMs, signal);
    } catch (err) {
      this.tokens += 1; // give the reservation back
      throw err;
    }
  }
}
