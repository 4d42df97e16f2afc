// A periodic task on the injected Clock: sleep `ms`, run, repeat until `signal` aborts. A failed
// run is reported to `onError` and the next period runs again: a periodic loop never dies.
import type { Clock } from './clock.js';

export async function runEvery(o: {
  clock: Clock;
  ms: number;
  signal: AbortSignal;
  run: () => Promise<unknown>;
  onError: (err: unknown) => void;
}): Promise<void> {
  while (!o.signal.aborted) {
    try {
      await o.clock.sleep(o.ms, o.signal);
    } catch {
      return;
    }
    try {
      await o.run();
    } catch (err) {
      o.onError(err);
    }
  }
}
