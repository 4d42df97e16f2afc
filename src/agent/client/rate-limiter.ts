// A token bucket for requests to the API server: `qps` tokens a second up to `burst`. Waiting
// goes through the injected Clock so tests control time, and through an AbortSignal so a
// stopping agent is not held up by its own limiter.
import type { Clock } from '../../common/util/clock.js';
import { TokenBucket } from '../../common/util/token-bucket.js';

export interface RateLimiter {
  /** Resolves when a request may go; rejects when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<void>;
}

/** A limiter that never waits (for calls excluded from --plat-api-qps). */
export const unlimited: RateLimiter = {
  acquire: (signal) =>
    signal?.aborted ? Promise.reject(signal.reason as Error) : Promise.resolve(),
};

/** --plat-api-qps / --plat-api-burst: 0 means 50 / 100. */
export function apiLimiter(
  qps: number | undefined,
  burst: number | undefined,
  clock: Clock,
): TokenBucket {
  return new TokenBucket({
    qps: qps && qps > 0 ? qps : 50,
    burst: burst && burst > 0 ? burst : 100,
    clock,
  });
}
