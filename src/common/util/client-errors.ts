// Answers to requests the HTTP parser refuses (headers over the limit: 431; a bad request: 400),
// written so the client can read them: the connection drains what the client still sends instead
// of being reset under the answer, as Go's servers linger before they close.
import type { Server as NetServer, Socket } from 'node:net';
import { systemClock, type Clock } from './clock.js';

const STATUS_LINES: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/** Go's net/http answer: the status line, and the status again as a plain-text body. */
function answer(status: string): string {
  return (
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(status)}\r\nConnection: close\r\n\r\n${status}`
  );
}

/**
 * Answers malformed requests (headers over the limit: 431) so the client can read the answer:
 * the response is written, then whatever the client is still sending is read and dropped until it
 * stops (for at most 5 s). The HTTP parser stays in its error and reports it again for each
 * further chunk: an answered connection is left to drain, not destroyed under the answer.
 */
export function answerClientErrors(server: NetServer, clock: Clock = systemClock): void {
  const answered = new WeakSet<Socket>();
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (answered.has(socket)) return;
    if (!socket.writable || (err.code === 'ECONNRESET' && socket.destroyed)) {
      socket.destroy();
      return;
    }
    const status = STATUS_LINES[err.code ?? ''] ?? '400 Bad Request';
    answered.add(socket);
    socket.end(answer(status));
    socket.resume();
    destroyAfter(socket, 5_000, clock);
  });
}

/** Destroys the socket `ms` from now on the clock, unless it closes first. */
export function destroyAfter(socket: Socket, ms: number, clock: Clock): void {
  const closed = new AbortController();
  socket.once('close', () => closed.abort());
  clock.sleep(ms, closed.signal).then(
    () => socket.destroy(),
    () => undefined,
  );
}
