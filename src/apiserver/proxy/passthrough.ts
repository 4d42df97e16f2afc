// The reference's UpgradeAwareHandler: the client's request goes to the agent as it came (the
// upgrade headers and the subprotocols it offers); a 101 from the agent is written back to the
// client and the two connections are joined byte for byte (SPDY, or a WebSocket the agent speaks
// itself); any other answer (the agent's 400/403 naming the protocols it accepts, a 404) is
// relayed to the client as the agent wrote it. Non-upgrade requests (nodes/proxy) are relayed
// with their bodies.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { dialAgent, type AgentAnswer, type AgentTarget, type AgentTls } from './agent-dial.js';
import { clientAddressOf } from '../front/peer.js';

/**
 * Hop-by-hop headers that are never relayed (RFC 9110 7.6.1), plus what authenticates the client
 * here.
 */
const DROPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
  'authorization',
  'proxy-authorization',
]);
const IMPERSONATION = /^impersonate-/i;

/** The request headers the agent gets: the client's, without hop-by-hop and credentials. */
export function forwardedHeaders(
  req: IncomingMessage,
  upgrade: boolean,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (values === undefined || DROPPED.has(name) || IMPERSONATION.test(name)) continue;
    out[name] = values.length === 1 && values[0] !== undefined ? values[0] : values;
  }
  const from = clientAddressOf(req.socket);
  const prior = req.headers['x-forwarded-for'];
  if (from !== '')
    out['x-forwarded-for'] = prior === undefined ? from : `${String(prior)}, ${from}`;
  if (upgrade) {
    out['connection'] = 'Upgrade';
    out['upgrade'] = req.headers.upgrade ?? '';
  }
  return out;
}

export function responseHead(res: IncomingMessage): string {
  const lines = [`HTTP/1.1 ${res.statusCode ?? 101} ${res.statusMessage ?? 'Switching Protocols'}`];
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2)
    lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Joins two byte streams; either side ending or failing tears both down. */
export function join(a: Duplex, b: Duplex): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      a.destroy();
      b.destroy();
      resolve();
    };
    a.on('error', finish);
    b.on('error', finish);
    a.once('close', finish);
    b.once('close', finish);
    // A side that went away while the other was being dialled has no close event left to give.
    if (a.destroyed || b.destroyed) {
      finish();
      return;
    }
    a.pipe(b);
    b.pipe(a);
  });
}

/** Relays a non-upgrade answer of the agent to the client. */
export function relayResponse(from: IncomingMessage, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(from.headersDistinct)) {
    if (values !== undefined && !DROPPED.has(name)) headers[name] = values;
  }
  res.writeHead(from.statusCode ?? 502, headers);
  return new Promise((resolve) => {
    from.pipe(res);
    const done = (): void => resolve();
    from.once('end', done);
    from.once('error', () => {
      res.destroy();
      resolve();
    });
    res.once('close', () => {
      from.destroy();
      resolve();
    });
  });
}

export interface Passthrough {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Present for an upgrade request. */
  readonly upgrade: { readonly socket: Duplex; readonly head: Buffer } | undefined;
  readonly target: AgentTarget;
  readonly tls: AgentTls;
  readonly signal: AbortSignal;
}

/** Throws AgentDialError when the agent cannot be reached (nothing written yet). */
export async function passThrough(p: Passthrough): Promise<void> {
  const upgrading = p.upgrade !== undefined;
  const answer: AgentAnswer = await dialAgent({
    target: p.target,
    tls: p.tls,
    method: p.req.method ?? 'GET',
    headers: forwardedHeaders(p.req, upgrading),
    ...(upgrading ? {} : { body: p.req, signal: p.signal }),
  });
  if (answer.kind === 'response') {
    await relayResponse(answer.response, p.res);
    return;
  }
  if (p.upgrade === undefined) {
    answer.socket.destroy();
    throw new Error('the agent upgraded a request that asked for no upgrade');
  }
  const client = p.upgrade.socket;
  (client as Partial<Socket>).setNoDelay?.(true);
  client.write(responseHead(answer.response));
  if (answer.head.length > 0) client.write(answer.head);
  if (p.upgrade.head.length > 0) answer.socket.write(p.upgrade.head);
  await join(client, answer.socket);
}
