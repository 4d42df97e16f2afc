// A request that settles when its signal aborts. undici takes the abort of a request that has no
// connection yet (queued behind a connect, or connecting to a server that accepts and never
// answers the TLS handshake) only once the connection is made or fails: its connect timeout,
// 10 s. A caller whose stop signal came would wait that long for a request it gave up on (the
// agent's stop, with an API server that does not answer, took 10 s). Here the call rejects with
// the signal's reason at once; undici still ends the request itself, and a response that comes
// after the abort has its body destroyed so its connection is not held.
import type { Dispatcher } from 'undici';

function reasonOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : new DOMException('This operation was aborted', 'AbortError');
}

function discard(p: Promise<Dispatcher.ResponseData>): void {
  p.then(
    (res) => res.body.destroy(),
    () => undefined,
  );
}

/** `p`, or a rejection with `signal`'s reason as soon as it aborts. */
export function settleOnAbort(
  p: Promise<Dispatcher.ResponseData>,
  signal: AbortSignal | undefined,
): Promise<Dispatcher.ResponseData> {
  if (signal === undefined) return p;
  if (signal.aborted) {
    discard(p);
    return Promise.reject(reasonOf(signal));
  }
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = (): void => {
      discard(p);
      reject(reasonOf(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([p, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}
