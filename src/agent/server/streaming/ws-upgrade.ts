// The WebSocket upgrade of the streaming endpoints, as the reference's wsstream.Conn.Open over
// golang.org/x/net/websocket: the client's Sec-WebSocket-Protocol values are tried in its order
// against the server's (no header: the "" protocol, binary); none matches: "403 Forbidden"
// with an empty body. The handshake itself (GET, key, version 13) is the `ws` library's.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

/** A subprotocol: binary or base64 channels, and whether it is v5 (close signal). */
export interface WsProtocol {
  readonly binary: boolean;
  readonly v5?: boolean;
  /** The error channel carries a v4 Status (v4 and v5). */
  readonly v4Status?: boolean;
}

/**
 * The reference's remotecommand websocket protocols (kubelet
 * cri/streaming/remotecommand/websocket.go).
 */
export const WS_EXEC_PROTOCOLS: ReadonlyMap<string, WsProtocol> = new Map([
  ['', { binary: true }],
  ['channel.k8s.io', { binary: true }],
  ['base64.channel.k8s.io', { binary: false }],
  ['v4.channel.k8s.io', { binary: true, v4Status: true }],
  ['v4.base64.channel.k8s.io', { binary: false, v4Status: true }],
  ['v5.channel.k8s.io', { binary: true, v4Status: true, v5: true }],
]);

/**
 * The reference's port-forward websocket protocols (kubelet
 * cri/streaming/portforward/websocket.go).
 */
export const WS_PORT_FORWARD_PROTOCOLS: ReadonlyMap<string, WsProtocol> = new Map([
  ['', { binary: true }],
  ['v4.channel.k8s.io', { binary: true }],
  ['v4.base64.channel.k8s.io', { binary: false }],
]);

/** Largest message accepted from a client (larger: close 1009, the connection ends). */
export const WS_MAX_PAYLOAD = 4 * 1024 * 1024;

export function offeredProtocols(req: IncomingMessage): string[] {
  const raw = req.headersDistinct['sec-websocket-protocol'] ?? [];
  return raw
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/**
 * The reference's handshake: the first protocol the client offers that the server has, with its
 * name.
 */
export function chooseProtocol(
  offered: readonly string[],
  server: ReadonlyMap<string, WsProtocol>,
): { readonly name: string; readonly protocol: WsProtocol } | undefined {
  const wanted = offered.length === 0 ? [''] : offered;
  for (const name of wanted) {
    const protocol = server.get(name);
    if (protocol !== undefined) return { name, protocol };
  }
  return undefined;
}

/** Answers what x/net/websocket answers when the handshake function refuses: 403, empty body. */
export function refuseProtocol(res: ServerResponse): void {
  res.writeHead(403, { connection: 'close', 'content-length': '0' }).end();
}

/** Completes the upgrade on the socket (taken from the response) with the chosen protocol. */
export function acceptWebSocket(
  req: IncomingMessage,
  res: ServerResponse,
  socket: Duplex,
  head: Buffer,
  protocol: string,
): Promise<WebSocket | undefined> {
  // Node hands 'upgrade' listeners the connection's net.Socket, typed as a Duplex.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
  res.detachSocket(socket as Parameters<ServerResponse['detachSocket']>[0]);
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: WS_MAX_PAYLOAD,
    perMessageDeflate: false,
    clientTracking: false,
    handleProtocols: () => (protocol === '' ? false : protocol),
  });
  return new Promise((resolve) => {
    // A bad handshake (method, key, version) is answered 4xx by ws, and the callback never runs.
    const onClose = (): void => resolve(undefined);
    socket.once('close', onClose);
    wss.handleUpgrade(req, socket, head, (ws) => {
      socket.off('close', onClose);
      resolve(ws);
    });
  });
}
