// --streaming-connection-idle-timeout: a streaming connection on which no byte has moved either
// way for the timeout is closed (the reference resets its deadline on every frame read or
// written). Time goes through the Clock: the connection's byte counters are compared once per
// period, so an idle connection closes between one and two periods after its last byte.

import type { Clock } from '../../../common/util/clock.js';

export interface IdleWatchOptions {
  clock: Clock;
  timeoutMs: number;
  /** A number that grows with every byte read or written (e.g. bytesRead + bytesWritten). */
  activity: () => number;
  onIdle: () => void;
  /** Aborted when the connection ends. */
  signal: AbortSignal;
}

export function watchIdle(o: IdleWatchOptions): void {
  if (o.timeoutMs <= 0) return;
  void (async () => {
    let last = o.activity();
    for (;;) {
      try {
        await o.clock.sleep(o.timeoutMs, o.signal);
      } catch {
        return; // the connection ended first
      }
      const now = o.activity();
      if (now === last) {
        o.onIdle();
        return;
      }
      last = now;
    }
  })();
}

/** Bytes moved on a socket (net.Socket and tls.TLSSocket count both ways). */
export function socketActivity(socket: unknown): () => number {
  const s = socket as { bytesRead?: number; bytesWritten?: number };
  return () => (s.bytesRead ?? 0) + (s.bytesWritten ?? 0);
}
