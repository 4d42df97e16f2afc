// /portForward/{ns}/{pod}[/{uid}] over SPDY/3.1 (subprotocol portforward.k8s.io), as the
// reference's portforward server: for each forwarded connection the client opens a pair of
// streams with the same requestID and port headers, streamType error and data. When both are
// there the agent connects to the port (127.0.0.1 for process:// pods) and copies both ways;
// a failure goes to the error stream with the reference's wording.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { systemClock } from '../../../common/util/clock.js';
import { SpdySession } from '../../../common/spdy/session.js';
import type { SpdyStream } from '../../../common/spdy/stream.js';
import type { StreamServeOptions } from './session-start.js';
import { negotiate, switchToSpdy } from './upgrade.js';
import { WIRE_NAMES } from '../../../common/names.js';
import { userMessage } from '../../../common/util/errors.js';
import { socketActivity, watchIdle } from './idle.js';
import { StreamTargetError, type PortForwardTarget } from './types.js';

interface Pair {
  error?: SpdyStream;
  data?: SpdyStream;
}

function parsePort(raw: string | undefined): number | string {
  if (raw === undefined || raw === '') return 'port header is required';
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535)
    return `invalid port "${raw.slice(0, 32)}": accepted: an integer from 1 to 65535`;
  return Number(raw);
}

export async function servePortForwardSpdy(
  req: IncomingMessage,
  res: ServerResponse,
  socket: Duplex,
  head: Buffer,
  ref: { namespace: string; pod: string; uid?: string },
  o: StreamServeOptions,
): Promise<void> {
  let target: PortForwardTarget;
  try {
    target = await o.runtime.portForward(ref);
  } catch (err) {
    const status = err instanceof StreamTargetError ? err.status : 500;
    res
      .writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' })
      .end(userMessage(err));
    return;
  }
  const protocol = negotiate(req, res, WIRE_NAMES.portForwardProtocols);
  if (protocol === undefined) return;
  switchToSpdy(res, socket, protocol);
  const session = new SpdySession({ socket, role: 'server', head, maxStreams: 256 });
  o.live?.add(session);
  const ended = new AbortController();
  session.once('close', () => ended.abort());
  watchIdle({
    clock: o.clock ?? systemClock,
    timeoutMs: o.idleTimeoutMs,
    activity: socketActivity(socket),
    signal: ended.signal,
    onIdle: () => session.destroy(),
  });
  const pairs = new Map<string, Pair>();
  session.on('stream', (s) => {
    const id = s.header('requestid') ?? '';
    const type = s.header('streamtype');
    const pair = pairs.get(id) ?? {};
    if ((type !== 'error' && type !== 'data') || pair[type] !== undefined) {
      s.reset(2);
      return;
    }
    pair[type] = s;
    pairs.set(id, pair);
    if (pair.error !== undefined && pair.data !== undefined) {
      pairs.delete(id);
      forward(pair.error, pair.data, target, ref, o);
    }
  });
  await new Promise<void>((resolve) => session.once('close', () => resolve()));
  o.live?.delete(session);
}

function forward(
  errorStream: SpdyStream,
  data: SpdyStream,
  target: PortForwardTarget,
  ref: { pod: string },
  o: StreamServeOptions,
): void {
  errorStream.resume(); // the client sends nothing on it; its end is read and dropped
  const port = parsePort(data.header('port'));
  if (typeof port === 'string') {
    errorStream.end(port);
    data.end();
    return;
  }
  target.connect(port).then(
    (conn) => {
      // A failure after the connection was made (Docker: nc in the sandbox could not connect).
      conn.on('error', (err) => {
        if (!errorStream.writableEnded)
          errorStream.end(
            `error forwarding port ${port} to pod ${ref.pod}, uid ${target.podUid}: ${err.message}`,
          );
      });
      data.pipe(conn);
      conn.pipe(data);
      conn.once('close', () => {
        if (!errorStream.writableEnded) errorStream.end();
      });
      data.once('close', () => conn.destroy());
    },
    (err: unknown) => {
      o.logger.debug(
        { pod: ref.pod, port, err: userMessage(err) },
        'port-forward: cannot reach the port',
      );
      errorStream.end(
        `error forwarding port ${port} to pod ${ref.pod}, uid ${target.podUid}: ` +
          userMessage(err),
      );
      data.end();
    },
  );
}
