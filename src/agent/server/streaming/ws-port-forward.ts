// /portForward/{ns}/{pod}[/{uid}] over WebSocket, as the reference's portforward websocket
// server: the ports come from the `port` query parameter (repeated or comma-separated); port i
// has data channel 2i and error channel 2i+1, and the first message on each carries the port as
// 2 bytes, little endian. One connection per port is made at once; its failure goes to the error
// channel with the reference's wording; when every port's connection has ended, so does the
// WebSocket.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex, Readable, Writable } from 'node:stream';
import { systemClock } from '../../../common/util/clock.js';
import { ChannelConnection, type ChannelMode } from './ws-channels.js';
import {
  WS_PORT_FORWARD_PROTOCOLS,
  acceptWebSocket,
  chooseProtocol,
  offeredProtocols,
  refuseProtocol,
} from './ws-upgrade.js';
import { socketActivity, watchIdle } from './idle.js';
import type { StreamServeOptions } from './session-start.js';
import { StreamTargetError, type PortForwardTarget } from './types.js';
import { userMessage } from '../../../common/util/errors.js';

/** Most ports one connection may forward (each takes two channels of the 255 a byte can name). */
export const MAX_WS_PORTS = 127;

/** The reference's NewV4Options for a WebSocket request: the ports, or the 400 text. */
export function parsePorts(url: URL): number[] | string {
  const raw = url.searchParams.getAll('port');
  if (raw.length === 0) return 'query parameter "port" is required';
  const ports: number[] = [];
  for (const value of raw) {
    if (value === '') return 'query parameter "port" cannot be empty';
    for (const p of value.split(',')) {
      if (!/^\d{1,5}$/.test(p) || Number(p) > 65535)
        return (
          `unable to parse "${value.slice(0, 64)}" as a port: accepted: integers from 1 ` +
          `to 65535, comma-separated`
        );
      if (Number(p) < 1) return `port "${value.slice(0, 64)}" must be > 0`;
      ports.push(Number(p));
    }
  }
  if (ports.length > MAX_WS_PORTS)
    return `${ports.length} ports: accepted: at most ${MAX_WS_PORTS} per connection`;
  return ports;
}

function bad(res: ServerResponse, status: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' })
    .end(`${message}\n`);
}

export async function servePortForwardWebSocket(
  req: IncomingMessage,
  res: ServerResponse,
  socket: Duplex,
  head: Buffer,
  url: URL,
  ref: { namespace: string; pod: string; uid?: string },
  o: StreamServeOptions,
): Promise<void> {
  const ports = parsePorts(url);
  if (typeof ports === 'string') {
    bad(res, 400, ports);
    return;
  }
  const chosen = chooseProtocol(offeredProtocols(req), WS_PORT_FORWARD_PROTOCOLS);
  if (chosen === undefined) {
    refuseProtocol(res);
    return;
  }
  let target: PortForwardTarget;
  try {
    target = await o.runtime.portForward(ref);
  } catch (err) {
    bad(res, err instanceof StreamTargetError ? err.status : 500, userMessage(err));
    return;
  }
  const ws = await acceptWebSocket(req, res, socket, head, chosen.name);
  if (ws === undefined) return;
  const modes: ChannelMode[] = ports.flatMap((): ChannelMode[] => ['readwrite', 'write']);
  const conn = new ChannelConnection({
    ws,
    binary: chosen.protocol.binary,
    modes,
    closeSignal: false,
  });
  o.live?.add(conn);
  const ended = new AbortController();
  void conn.done.then(() => ended.abort());
  watchIdle({
    clock: o.clock ?? systemClock,
    timeoutMs: o.idleTimeoutMs,
    activity: socketActivity(socket),
    signal: ended.signal,
    onIdle: () => conn.destroy(),
  });
  try {
    await Promise.all(ports.map((port, i) => forwardOne(conn, i, port, target, ref.pod, o)));
    conn.close();
    await conn.done;
  } finally {
    o.live?.delete(conn);
  }
}

async function forwardOne(
  conn: ChannelConnection,
  i: number,
  port: number,
  target: PortForwardTarget,
  pod: string,
  o: StreamServeOptions,
): Promise<void> {
  const portBytes = Buffer.alloc(2);
  portBytes.writeUInt16LE(port);
  await conn.send(2 * i, portBytes);
  await conn.send(2 * i + 1, portBytes);
  const data = conn.reader(2 * i);
  if (data === undefined)
    throw new Error(`port-forward: channel ${2 * i} is not read (its mode must be 'readwrite')`);
  let upstream: Duplex;
  try {
    upstream = await target.connect(port);
  } catch (err) {
    o.logger.debug({ pod, port, err: userMessage(err) }, 'port-forward: cannot reach the port');
    await conn.send(
      2 * i + 1,
      Buffer.from(
        `error forwarding port ${port} to pod ${pod}, uid ${target.podUid}: ${userMessage(err)}`,
      ),
    );
    return;
  }
  // A failure after the connection was made (Docker: nc in the sandbox could not connect).
  upstream.on(
    'error',
    (err) =>
      void conn.send(
        2 * i + 1,
        Buffer.from(
          `error forwarding port ${port} to pod ${pod}, uid ${target.podUid}: ${err.message}`,
        ),
      ),
  );
  await copyBoth(data, conn.writer(2 * i), upstream, conn);
}

function copyBoth(
  fromClient: Readable,
  toClient: Writable,
  upstream: Duplex,
  conn: ChannelConnection,
): Promise<void> {
  return new Promise((resolve) => {
    fromClient.pipe(upstream);
    upstream.pipe(toClient);
    const done = (): void => {
      upstream.destroy();
      resolve();
    };
    // Ends once what the port sent has been sent on (the writer's finish), or the port or the
    // connection is gone.
    toClient.once('finish', done);
    upstream.once('close', () => {
      if (!upstream.readableEnded) done();
    });
    void conn.done.then(done);
  });
}
