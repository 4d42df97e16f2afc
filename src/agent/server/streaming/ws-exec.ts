// exec and attach over WebSocket, as the reference's remotecommand websocket server: channels
// 0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize; an empty message on the lowest channel we
// write (stdout, else stderr, else error) tells the client the session is up; the error
// channel gets the outcome (v4/v5: a Status as JSON), then the close frame (1000).
// v5.channel.k8s.io: the client's [255, 0] closes the process's stdin. A client that goes away
// closes the process's stdin and ends the session (an exec's command is killed).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { systemClock } from '../../../common/util/clock.js';
import { userMessage } from '../../../common/util/errors.js';
import { ChannelConnection, type ChannelMode } from './ws-channels.js';
import {
  WS_EXEC_PROTOCOLS,
  acceptWebSocket,
  chooseProtocol,
  offeredProtocols,
  refuseProtocol,
  type WsProtocol,
} from './ws-upgrade.js';
import { pumpExec, type ExecIo } from './exec-io.js';
import type { ExecSession } from './types.js';
import { socketActivity, watchIdle } from './idle.js';
import {
  finalStatus,
  startSession,
  type ExecRequest,
  type LiveConnection,
  type StreamServeOptions,
} from './session-start.js';

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;

function modes(r: ExecRequest): ChannelMode[] {
  return [
    r.stdin ? 'read' : 'ignore',
    r.stdout ? 'write' : 'ignore',
    r.stderr ? 'write' : 'ignore',
    'write',
    'read',
  ];
}

/** Ends the session when the connection goes idle; the process when the client goes away. */
function endWithConnection(
  conn: ChannelConnection,
  socket: Duplex,
  proc: ExecSession,
  o: StreamServeOptions,
): void {
  const ended = new AbortController();
  void conn.done.then(() => ended.abort());
  watchIdle({
    clock: o.clock ?? systemClock,
    timeoutMs: o.idleTimeoutMs,
    activity: socketActivity(socket),
    signal: ended.signal,
    onIdle: () => conn.destroy(),
  });
  void conn.done.then(() => {
    proc.stdin.end();
    proc.kill();
  });
}

/** The process's streams on the request's channels. */
function channelIo(conn: ChannelConnection, r: ExecRequest): ExecIo {
  // Without a terminal, sizes are read and dropped (an unread channel would stall the others).
  if (!r.tty) conn.reader(RESIZE)?.resume();
  return {
    stdin: conn.reader(STDIN),
    stdout: r.stdout ? conn.writer(STDOUT) : undefined,
    stderr: r.stderr ? conn.writer(STDERR) : undefined,
    resize: r.tty ? conn.reader(RESIZE) : undefined,
  };
}

/** Says the session is up, pumps the streams, then sends the outcome and closes. */
async function runSession(
  conn: ChannelConnection,
  proc: ExecSession,
  r: ExecRequest,
  p: WsProtocol,
  o: StreamServeOptions,
): Promise<void> {
  await conn.send(r.stdout ? STDOUT : r.stderr ? STDERR : ERROR, Buffer.alloc(0));
  const io = channelIo(conn, r);
  const code = await pumpExec(proc, io, o.logger);
  // The output still buffered in the writers leaves before the Status and the close.
  await Promise.all(
    [io.stdout, io.stderr].map((w) =>
      w === undefined ? Promise.resolve() : ChannelConnection.flushed(w),
    ),
  );
  if (conn.isClosed()) return;
  const text = finalStatus(r, p.v4Status === true, code);
  if (text !== '') await conn.send(ERROR, Buffer.from(text));
  conn.close();
  await conn.done;
}

export async function serveExecWebSocket(
  req: IncomingMessage,
  res: ServerResponse,
  socket: Duplex,
  head: Buffer,
  r: ExecRequest,
  o: StreamServeOptions,
): Promise<void> {
  const chosen = chooseProtocol(offeredProtocols(req), WS_EXEC_PROTOCOLS);
  if (chosen === undefined) {
    refuseProtocol(res);
    return;
  }
  const { name: protocol, protocol: p } = chosen;
  const proc = await startSession(res, r, o);
  if (proc === undefined) return;
  const ws = await acceptWebSocket(req, res, socket, head, protocol);
  if (ws === undefined) {
    proc.kill();
    return;
  }
  const conn = new ChannelConnection({
    ws,
    binary: p.binary,
    modes: modes(r),
    closeSignal: p.v5 === true,
  });
  const live: LiveConnection = conn;
  o.live?.add(live);
  endWithConnection(conn, socket, proc, o);
  try {
    await runSession(conn, proc, r, p, o);
  } catch (err) {
    o.logger.info(
      { pod: r.ref.pod, container: r.ref.container, err: userMessage(err) },
      `${r.kind}: the WebSocket connection failed; ending the session`,
    );
    conn.destroy();
  } finally {
    o.live?.delete(live);
  }
}
