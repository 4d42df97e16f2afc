// The one exponential back-off of both programs. `backoffDelayMs` is the delay before retry
// number `attempt` (0-based): `initialMs` grown by `factor` per failure, capped at `maxMs`, with
// optional jitter. `BackoffSequence` keeps the attempt count for one retry loop and waits its
// delays on the injected Clock, so tests advance time instead of sleeping.
import type { Clock } from './clock.js';

export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  /** Growth per failure (default 2). */
  readonly factor?: number;
  /**
   * Random spread of each delay, as a fraction of it: `up` adds up to that fraction (the
   * reference's wait.Backoff Jitter), `down` takes up to that fraction off (1/2 is "equal
   * jitter": never zero, yet many clients do not retry in step).
   */
  readonly jitter?: { readonly up?: number; readonly down?: number };
}

/** The delay before retry number `attempt` (0-based); `random` in [0,1). */
export function backoffDelayMs(
  policy: BackoffPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const factor = policy.factor ?? 2;
  const steps = Math.max(0, Math.floor(attempt));
  const base = Math.min(policy.maxMs, policy.initialMs * factor ** steps);
  const up = policy.jitter?.up ?? 0;
  const down = policy.jitter?.down ?? 0;
  if (up === 0 && down === 0) return base;
  const r = random();
  return Math.round(base * (1 - down + r * (up + down)));
}

export interface BackoffSequenceOptions {
  readonly policy: BackoffPolicy;
  readonly clock: Clock;
  readonly random?: () => number;
}

/** The delays of one retry loop: each failure waits longer, a success starts over. */
export class BackoffSequence {
  private attempt = 0;

  constructor(private readonly o: BackoffSequenceOptions) {}

  /** The delay the next failure waits (for log lines), without using it up. */
  peekMs(): number {
    const { initialMs, maxMs, factor } = this.o.policy;
    return backoffDelayMs(
      { initialMs, maxMs, ...(factor === undefined ? {} : { factor }) },
      this.attempt,
    );
  }

  /** The delay to wait now; the one after it grows. */
  nextMs(): number {
    return backoffDelayMs(this.o.policy, this.attempt++, this.o.random);
  }

  /** Failures since the last reset. */
  get failures(): number {
    return this.attempt;
  }

  /** A success: the next failure waits the initial delay again. */
  reset(): void {
    this.attempt = 0;
  }

  /** Waits the next delay on the clock; rejects when `signal` aborts. Resolves with the delay. */
  async sleep(signal?: AbortSignal): Promise<number> {
    const ms = this.nextMs();
    await this.o.clock.sleep(ms, signal);
    return ms;
  }
}
