// The SPDY/3.1 upgrade handshake as the reference's httpstream does it: the client lists the
// subprotocols it speaks in X-Stream-Protocol-Version, the server picks the first of its own
// that the client offers and answers 101 with it; no header: 400; no common protocol: 403 with
// X-Accepted-Stream-Protocol-Versions listing the server's (httpstream.Handshake).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

function listHeader(req: IncomingMessage, name: string): string[] {
  const raw = req.headersDistinct[name] ?? [];
  return raw
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

export function isSpdyUpgrade(req: IncomingMessage): boolean {
  const connection = listHeader(req, 'connection').map((v) => v.toLowerCase());
  const upgrade = (req.headers.upgrade ?? '').toLowerCase();
  return connection.includes('upgrade') && upgrade.includes('spdy/3.1');
}

/**
 * The reference's wsstream.IsWebSocketRequest: Upgrade: websocket and Connection naming upgrade.
 */
export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  const connection = listHeader(req, 'connection').map((v) => v.toLowerCase());
  return (
    (req.headers.upgrade ?? '').toLowerCase() === 'websocket' && connection.includes('upgrade')
  );
}

function plain(
  res: ServerResponse,
  status: number,
  body: string,
  extra: Record<string, string[]> = {},
): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    connection: 'close',
    ...extra,
  });
  res.end(`${body}\n`);
}

/**
 * Negotiates the subprotocol. On failure it answers (as the reference: 400 without the header,
 * 403 plus the 400 text of the caller when nothing matches) and returns undefined.
 */
export function negotiate(
  req: IncomingMessage,
  res: ServerResponse,
  server: readonly string[],
): string | undefined {
  const client = listHeader(req, 'x-stream-protocol-version');
  if (client.length === 0) {
    plain(res, 400, 'unable to upgrade: X-Stream-Protocol-Version is required');
    return undefined;
  }
  const chosen = server.find((p) => client.includes(p));
  if (chosen === undefined) {
    const msg =
      `unable to upgrade: unable to negotiate protocol: client supports [` +
      `${client.join(' ')}], server accepts [${server.join(' ')}]`;
    // The reference answers 403 in Handshake and its caller then writes the same text again.
    plain(res, 403, `${msg}\n${msg}`, { 'x-accepted-stream-protocol-versions': [...server] });
    return undefined;
  }
  return chosen;
}

/** Takes the socket from the HTTP response and writes the 101 of the SPDY/3.1 upgrade. */
export function switchToSpdy(res: ServerResponse, socket: Duplex, protocol: string): void {
  // Node hands 'upgrade' listeners the connection's net.Socket, typed as a Duplex.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
  res.detachSocket(socket as Parameters<ServerResponse['detachSocket']>[0]);
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ` +
      `SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`,
  );
}
