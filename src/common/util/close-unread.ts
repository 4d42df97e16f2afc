// Closing a stream that is still open on purpose (a watch whose answer has arrived): an HTTP body
// closed before its end makes the client library create errors ("aborted") for the request and
// its socket, and Node reads each such error's stack. With the source maps on (bin/), the first
// stack that names the bundle makes Node decode the bundle's whole source map: tens of
// milliseconds on the agent's start-up path, for errors no one sees. They are made here without
// stack frames; the error the stream then emits (its own "aborted") is the expected end and is
// not reported. A stream that failed was destroyed by its failure, with its stack, before this.
import type { Readable } from 'node:stream';

function expectedEnd(): void {
  // The "aborted" of a stream closed on purpose.
}

/**
 * Destroys `stream` (no error: the end is expected); errors made meanwhile carry no stack frames.
 */
export function closeUnread(stream: Readable): void {
  if (stream.destroyed) return;
  stream.on('error', expectedEnd);
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    stream.destroy();
  } finally {
    Error.stackTraceLimit = limit;
  }
}
