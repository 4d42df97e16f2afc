// Time is injected so tests can control it; production code uses `systemClock`.
export interface Clock {
  now(): Date;
  /** Milliseconds since the epoch. */
  nowMs(): number;
  /** Resolves after `ms` or rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * A one-shot timer (a deadline, an idle timeout): runs `fn` after `ms`; the returned function
   * cancels it. Apart from sleep so a test clock can tell a loop parked in a sleep from a request
   * that merely has a deadline. Optional: a clock without it gets timers made of sleeps (afterMs).
   * `unref` lets the process exit while only this timer is pending (system clock only).
   */
  setTimer?(ms: number, fn: () => void, opts?: { unref?: boolean }): () => void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  nowMs: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        // an aborted sleep rejects with the signal's own reason, as node:timers/promises does
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        reject(signal.reason);
        return;
      }
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = (): void => {
        clearTimeout(t);
        // the signal's own reason, as above
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
  setTimer: (ms, fn, opts) => {
    const t = setTimeout(fn, ms);
    if (opts?.unref === true) t.unref();
    return () => clearTimeout(t);
  },
};

/**
 * Runs `fn` once after `ms` on `clock`; the returned function cancels it. The one way code outside
 * this module sets a one-shot timer, so a ManualClock moves it.
 */
export function afterMs(
  clock: Clock,
  ms: number,
  fn: () => void,
  opts: { unref?: boolean } = {},
): () => void {
  if (clock.setTimer) return clock.setTimer(ms, fn, opts);
  const ac = new AbortController();
  clock.sleep(ms, ac.signal).then(fn, () => undefined);
  return () => ac.abort();
}

/**
 * Runs `fn` every `ms` on `clock` (re-armed after each run) until the returned function is called:
 * a poll, a compaction tick. For async work that must not overlap and must report its failures,
 * use runEvery (every.ts).
 */
export function everyMs(
  clock: Clock,
  ms: number,
  fn: () => void,
  opts: { unref?: boolean } = {},
): () => void {
  let stopped = false;
  let cancel = (): void => undefined;
  const arm = (): void => {
    cancel = afterMs(
      clock,
      ms,
      () => {
        if (stopped) return;
        arm();
        fn();
      },
      opts,
    );
  };
  arm();
  return () => {
    stopped = true;
    cancel();
  };
}
