// /exec/{ns}/{pod}[/{uid}]/{container} and /attach/... over SPDY/3.1, as the reference's
// remotecommand server: the client opens one stream per channel (streamType header: error,
// stdin, stdout, stderr, resize), the session runs once they are all there, its output goes
// to stdout/stderr, the stdin stream's end closes the process's stdin, resize carries terminal
// sizes, and the error stream gets the outcome before the connection closes. A client that
// goes away closes the process's stdin and kills an exec (an attach only detaches).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { afterMs, systemClock, type Clock } from '../../../common/util/clock.js';
import { SpdySession } from '../../../common/spdy/session.js';
import type { SpdyStream } from '../../../common/spdy/stream.js';
import { negotiate, switchToSpdy } from './upgrade.js';
import { WIRE_NAMES } from '../../../common/names.js';
import { pumpExec } from './exec-io.js';
import { socketActivity, watchIdle } from './idle.js';
import {
  finalStatus,
  startSession,
  type ExecRequest,
  type StreamServeOptions,
} from './session-start.js';
import type { ExecSession } from './types.js';

export { execRequest, type ExecRequest, type StreamServeOptions } from './session-start.js';

function expectedStreams(r: ExecRequest, protocol: string): Set<string> {
  const s = new Set(['error']);
  if (r.stdin) s.add('stdin');
  if (r.stdout) s.add('stdout');
  if (r.stderr) s.add('stderr');
  if (r.tty && protocol !== 'channel.k8s.io' && protocol !== 'v2.channel.k8s.io') s.add('resize');
  return s;
}

export async function serveExecSpdy(
  req: IncomingMessage,
  res: ServerResponse,
  socket: Duplex,
  head: Buffer,
  r: ExecRequest,
  o: StreamServeOptions,
): Promise<void> {
  const proc = await startSession(res, r, o);
  if (proc === undefined) return;
  const protocol = negotiate(req, res, WIRE_NAMES.execProtocols);
  if (protocol === undefined) {
    proc.kill();
    return;
  }
  switchToSpdy(res, socket, protocol);
  const session = new SpdySession({ socket, role: 'server', head });
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
  await runExec(session, proc, r, protocol, o).finally(() => o.live?.delete(session));
}

async function collectStreams(
  session: SpdySession,
  want: Set<string>,
  timeoutMs: number,
  clock: Clock,
): Promise<Map<string, SpdyStream> | undefined> {
  const got = new Map<string, SpdyStream>();
  return new Promise((resolve) => {
    const cancelTimer = afterMs(clock, timeoutMs, () => finish(undefined));
    const finish = (v: Map<string, SpdyStream> | undefined): void => {
      cancelTimer();
      session.off('stream', onStream);
      session.off('close', onClose);
      resolve(v);
    };
    const onStream = (s: SpdyStream): void => {
      const type = s.header('streamtype') ?? '';
      if (!want.has(type) || got.has(type)) {
        s.reset(2);
        return;
      }
      got.set(type, s);
      if (got.size === want.size) finish(got);
    };
    const onClose = (): void => finish(undefined);
    session.on('stream', onStream);
    session.on('close', onClose);
  });
}

function finished(s: SpdyStream): Promise<void> {
  return new Promise((resolve) => {
    if (s.writableFinished || s.destroyed) {
      resolve();
      return;
    }
    s.once('finish', () => resolve());
    s.once('close', () => resolve());
    s.end();
  });
}

async function runExec(
  session: SpdySession,
  proc: ExecSession,
  r: ExecRequest,
  protocol: string,
  o: StreamServeOptions,
): Promise<void> {
  const streams = await collectStreams(
    session,
    expectedStreams(r, protocol),
    o.streamCreationTimeoutMs ?? 30_000,
    o.clock ?? systemClock,
  );
  if (streams === undefined) {
    o.logger.info(
      { pod: r.ref.pod, container: r.ref.container },
      `${r.kind}: the client did not open its streams (or went away); ending the session`,
    );
    proc.kill();
    session.destroy();
    return;
  }
  // The client went away: stdin is closed first (as the reference's stream teardown does), then
  // the session is ended (an exec's command killed) so nothing outlives the connection.
  const onGone = (): void => {
    proc.stdin.end();
    proc.kill();
  };
  session.once('close', onGone);
  const code = await pumpExec(
    proc,
    {
      stdin: streams.get('stdin'),
      stdout: streams.get('stdout'),
      stderr: streams.get('stderr'),
      resize: streams.get('resize'),
    },
    o.logger,
  );
  session.off('close', onGone);
  if (session.isClosed()) return;
  const text = finalStatus(r, protocol === 'v4.channel.k8s.io', code);
  if (text !== '') streams.get('error')?.write(text);
  // Every stream's data and FIN leave before GOAWAY.
  await Promise.all([...streams.values()].map((s) => finished(s)));
  await session.close();
}
