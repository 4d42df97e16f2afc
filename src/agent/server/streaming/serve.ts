// Dispatch of an upgrade request to /exec, /attach or /portForward: the path and query are
// checked first (400 with what is accepted), then the protocol: SPDY/3.1 is served; a
// WebSocket upgrade is answered 400 for now (not offered yet, said in the body).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { execRequest, serveExecSpdy, type StreamServeOptions } from './exec.js';
import { servePortForwardSpdy } from './port-forward.js';
import { isSpdyUpgrade, isWebSocketUpgrade } from './upgrade.js';

export interface UpgradeSocket {
  readonly socket: Duplex;
  readonly head: Buffer;
}

function segments(path: string, prefix: string): string[] | undefined {
  try {
    return path.slice(prefix.length).split('/').filter((s) => s !== '').map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

function bad(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(`${message}\n`);
}

export async function serveStreaming(req: IncomingMessage, res: ServerResponse, url: URL, up: UpgradeSocket, o: StreamServeOptions): Promise<void> {
  if (isWebSocketUpgrade(req)) {
    bad(res, 400, 'WebSocket streaming is not offered by this agent yet; upgrade with SPDY/3.1');
    return;
  }
  if (!isSpdyUpgrade(req)) {
    bad(res, 400, 'unable to upgrade: missing upgrade headers in request (accepted: Connection: Upgrade, Upgrade: SPDY/3.1)');
    return;
  }
  const path = url.pathname;
  if (path.startsWith('/portForward/')) {
    const p = segments(path, '/portForward/');
    if (p === undefined || (p.length !== 2 && p.length !== 3)) {
      bad(res, 400, 'expected /portForward/{namespace}/{pod}[/{uid}]');
      return;
    }
    await servePortForwardSpdy(req, res, up.socket, up.head, { namespace: p[0]!, pod: p[1]!, ...(p[2] !== undefined ? { uid: p[2] } : {}) }, o);
    return;
  }
  const kind = path.startsWith('/attach/') ? 'attach' : 'exec';
  const p = segments(path, `/${kind}/`);
  if (p === undefined || (p.length !== 3 && p.length !== 4)) {
    bad(res, 400, `expected /${kind}/{namespace}/{pod}[/{uid}]/{container}`);
    return;
  }
  const ref = p.length === 3 ? { namespace: p[0]!, pod: p[1]!, container: p[2]! } : { namespace: p[0]!, pod: p[1]!, uid: p[2]!, container: p[3]! };
  if (kind === 'attach') {
    bad(res, 400, 'attach is not offered by this agent yet (process:// containers have no attachable terminal); use exec');
    return;
  }
  const command = url.searchParams.getAll('command');
  if (command.length === 0) {
    bad(res, 400, 'missing command');
    return;
  }
  const r = execRequest(url, ref, command);
  if (typeof r === 'string') {
    bad(res, 400, r);
    return;
  }
  await serveExecSpdy(req, res, up.socket, up.head, r, o);
}
