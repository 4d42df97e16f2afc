// A response object on an upgrade request's raw socket: until a handler takes the socket over,
// every answer (a refusal, a 401, a 500) is an ordinary HTTP response, and the socket ends when
// it is written. Socket errors are the handler's to see, not the process's.
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

export function responseOnUpgrade(req: IncomingMessage, socket: Duplex): ServerResponse {
  socket.on('error', () => undefined);
  const res = new ServerResponse(req);
  // Node hands 'upgrade' listeners the connection's net.Socket, typed as a Duplex
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
  res.assignSocket(socket as Socket);
  res.shouldKeepAlive = false;
  res.once('finish', () => socket.end());
  return res;
}
