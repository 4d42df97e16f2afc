// Dispatch of an upgrade request to /exec, /attach or /portForward: the path and query are
// checked first (400 with what is accepted), then the protocol: SPDY/3.1 or WebSocket.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { serveExecSpdy } from './exec.js';
import { servePortForwardSpdy } from './port-forward.js';
import { execRequest, type StreamServeOptions } from './session-start.js';
import { isSpdyUpgrade, isWebSocketUpgrade } from './upgrade.js';
import { serveExecWebSocket } from './ws-exec.js';
import { servePortForwardWebSocket } from './ws-port-forward.js';

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
  const ws = isWebSocketUpgrade(req);
  if (!ws && !isSpdyUpgrade(req)) {
    bad(res, 400, 'unable to upgrade: missing upgrade headers in request (accepted: Connection: Upgrade, Upgrade: SPDY/3.1 or websocket)');
    return;
  }
  const path = url.pathname;
  if (path.startsWith('/portForward/')) {
    const p = segments(path, '/portForward/');
    if (p === undefined || (p.length !== 2 && p.length !== 3)) {
      bad(res, 400, 'expected /portForward/{namespace}/{pod}[/{uid}]');
      return;
    }
    const ref = { namespace: p[0]!, pod: p[1]!, ...(p[2] !== undefined ? { uid: p[2] } : {}) };
    if (ws) await servePortForwardWebSocket(req, res, up.socket, up.head, url, ref, o);
    else await servePortForwardSpdy(req, res, up.socket, up.head, ref, o);
    return;
  }
  const kind = path.startsWith('/attach/') ? 'attach' : 'exec';
  const p = segments(path, `/${kind}/`);
  if (p === undefined || (p.length !== 3 && p.length !== 4)) {
    bad(res, 400, `expected /${kind}/{namespace}/{pod}[/{uid}]/{container}`);
    return;
  }
  const ref = p.length === 3 ? { namespace: p[0]!, pod: p[1]!, container: p[2]! } : { namespace: p[0]!, pod: p[1]!, uid: p[2]!, container: p[3]! };
  const command = url.searchParams.getAll('command');
  if (kind === 'exec' && command.length === 0) {
    bad(res, 400, 'missing command');
    return;
  }
  const r = execRequest(kind, url, ref, kind === 'exec' ? command : []);
  if (typeof r === 'string') {
    bad(res, 400, r);
    return;
  }
  if (ws) await serveExecWebSocket(req, res, up.socket, up.head, r, o);
  else await serveExecSpdy(req, res, up.socket, up.head, r, o);
}
