// Retry delays for API calls: the common exponential back-off with equal jitter, capped, and
// Retry-After wins when the server sends it.
import { backoffDelayMs } from '../../common/util/backoff.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  initialDelayMs: number;
  maxDelayMs: number;
  /** Longest Retry-After we honour; a larger one is clamped. */
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 5,
  initialDelayMs: 200,
  maxDelayMs: 5000,
  maxRetryAfterMs: 30_000,
};

/** Delay before retry number `attempt` (0-based); `random` in [0,1) for jitter. */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined)
    return Math.min(Math.max(0, retryAfterMs), policy.maxRetryAfterMs);
  // Half fixed, half jitter: never zero, spread so many agents do not retry in step.
  return backoffDelayMs(
    { initialMs: policy.initialDelayMs, maxMs: policy.maxDelayMs, jitter: { down: 0.5 } },
    attempt,
    random,
  );
}

/** Parses a Retry-After header: seconds, or an HTTP date. */
export function parseRetryAfter(
  value: string | string[] | undefined,
  nowMs: number,
): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v === '') return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.max(0, t - nowMs);
}

/** Statuses worth retrying: throttling and server-side trouble. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}
