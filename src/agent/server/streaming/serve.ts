// Dispatch of an upgrade request to /exec, /attach or /portForward: the path and query are
// checked first (400 with what is accepted), then the protocol: SPDY/3.1 or WebSocket.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { serveExecSpdy } from './exec.js';
import { servePortForwardSpdy } from './port-forward.js';
import { execRequest, type StreamServeOptions } from './session-start.js';
import type { ContainerRef } from './types.js';
import { isSpdyUpgrade, isWebSocketUpgrade } from './upgrade.js';
import { serveExecWebSocket } from './ws-exec.js';
import { servePortForwardWebSocket } from './ws-port-forward.js';

export interface UpgradeSocket {
  readonly socket: Duplex;
  readonly head: Buffer;
}

function segments(path: string, prefix: string): string[] | undefined {
  try {
    return path
      .slice(prefix.length)
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

/** `{namespace}/{pod}[/{uid}]`, or undefined for any other number of segments. */
function podRef(
  p: readonly string[] | undefined,
): { namespace: string; pod: string; uid?: string } | undefined {
  const [namespace, pod, uid, extra] = p ?? [];
  if (namespace === undefined || pod === undefined || extra !== undefined) return undefined;
  return { namespace, pod, ...(uid !== undefined ? { uid } : {}) };
}

/** `{namespace}/{pod}[/{uid}]/{container}`, or undefined for any other number of segments. */
function containerRef(p: readonly string[] | undefined): ContainerRef | undefined {
  const [namespace, pod, third, fourth, extra] = p ?? [];
  if (namespace === undefined || pod === undefined || third === undefined || extra !== undefined)
    return undefined;
  return fourth === undefined
    ? { namespace, pod, container: third }
    : { namespace, pod, uid: third, container: fourth };
}

function bad(res: ServerResponse, status: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' })
    .end(`${message}\n`);
}

export async function serveStreaming(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  up: UpgradeSocket,
  o: StreamServeOptions,
): Promise<void> {
  const ws = isWebSocketUpgrade(req);
  if (!ws && !isSpdyUpgrade(req)) {
    bad(
      res,
      400,
      'unable to upgrade: missing upgrade headers in request (accepted: Connection: ' +
        'Upgrade, Upgrade: SPDY/3.1 or websocket)',
    );
    return;
  }
  const path = url.pathname;
  if (path.startsWith('/portForward/')) {
    const ref = podRef(segments(path, '/portForward/'));
    if (ref === undefined) {
      bad(res, 400, 'expected /portForward/{namespace}/{pod}[/{uid}]');
      return;
    }
    if (ws) await servePortForwardWebSocket(req, res, up.socket, up.head, url, ref, o);
    else await servePortForwardSpdy(req, res, up.socket, up.head, ref, o);
    return;
  }
  const kind = path.startsWith('/attach/') ? 'attach' : 'exec';
  const ref = containerRef(segments(path, `/${kind}/`));
  if (ref === undefined) {
    bad(res, 400, `expected /${kind}/{namespace}/{pod}[/{uid}]/{container}`);
    return;
  }
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
