// The reference's TunnelingHandler for port-forward over WebSocket (kubectl 1.32's default): the
// client offers subprotocols `SPDY/3.1+portforward.k8s.io`; plat-apiserver asks the agent for a
// SPDY upgrade with those protocols, and when the agent agrees, accepts the WebSocket with the
// agent's choice (prefixed again) and carries the SPDY bytes inside binary messages both ways.
// A refusal of the agent is relayed to the client as the agent wrote it.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { dialAgent, type AgentTarget, type AgentTls } from './agent-dial.js';
import { relayResponse } from './passthrough.js';
import { joinWebSocket } from './ws-join.js';

export const TUNNEL_PREFIX = 'SPDY/3.1+';

/** The SPDY protocols inside the client's tunneling subprotocols (`SPDY/3.1+<p>.k8s.io`). */
export function tunneledProtocols(req: IncomingMessage): string[] {
  const raw = req.headersDistinct['sec-websocket-protocol'] ?? [];
  return raw
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((p) => p.startsWith(TUNNEL_PREFIX) && p.endsWith('.k8s.io'))
    .map((p) => p.slice(TUNNEL_PREFIX.length));
}

export function isTunnelingRequest(req: IncomingMessage): boolean {
  return (
    (req.headers.upgrade ?? '').toLowerCase() === 'websocket' && tunneledProtocols(req).length > 0
  );
}

export interface TunnelOptions {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly socket: Duplex;
  readonly head: Buffer;
  readonly target: AgentTarget;
  readonly tls: AgentTls;
  readonly live?: Set<unknown>;
}

/** Throws AgentDialError when the agent cannot be reached (nothing written yet). */
export async function tunnelPortForward(o: TunnelOptions): Promise<void> {
  const protocols = tunneledProtocols(o.req);
  if (protocols.length === 0) {
    o.res
      .writeHead(400, {
        'content-type': 'text/plain; charset=utf-8',
        'x-content-type-options': 'nosniff',
      })
      .end('unable to upgrade: no tunneling spdy protocols provided\n');
    return;
  }
  const answer = await dialAgent({
    target: o.target,
    tls: o.tls,
    method: 'POST',
    headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': protocols },
  });
  if (answer.kind === 'response') {
    await relayResponse(answer.response, o.res);
    return;
  }
  const chosen = String(answer.response.headers['x-stream-protocol-version'] ?? '').trim();
  // The agent's choice, prefixed again, is the WebSocket's subprotocol (none when it named none).
  // `SPDY/3.1+...` is not an RFC 7230 token, which ws's parser requires: the offer is taken off
  // the request (it was read above) and the answer added to the 101's headers.
  delete o.req.headers['sec-websocket-protocol'];
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  if (chosen !== '')
    wss.on('headers', (headers) =>
      headers.push(`Sec-WebSocket-Protocol: ${TUNNEL_PREFIX}${chosen}`),
    );
  (o.socket as Partial<Socket>).setNoDelay?.(true);
  if (o.socket.destroyed) {
    // The client went away while the agent was being dialled.
    answer.socket.destroy();
    return;
  }
  const ws = await new Promise<WebSocket | undefined>((resolve) => {
    // A bad handshake is answered 400 by ws, which then closes the socket without a callback.
    const onClose = (): void => resolve(undefined);
    o.socket.once('close', onClose);
    wss.handleUpgrade(o.req, o.socket, o.head, (w) => {
      o.socket.off('close', onClose);
      resolve(w);
    });
  });
  if (ws === undefined) {
    answer.socket.destroy();
    return;
  }
  // A protocol error of the client closes its WebSocket; joinWebSocket tears the tunnel down.
  o.live?.add(ws);
  if (answer.head.length > 0) ws.send(answer.head, { binary: true });
  await joinWebSocket(ws, answer.socket);
  o.live?.delete(ws);
}
