// /exec/{ns}/{pod}[/{uid}]/{container} and /attach/... over SPDY/3.1, as the reference's
// remotecommand server: the client opens one stream per channel (streamType header: error,
// stdin, stdout, stderr, resize), the command starts once they are all there, its output goes
// to stdout/stderr, the stdin stream's end closes the process's stdin, and the error stream
// gets the outcome before the connection closes. A client that goes away kills the process.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex, Readable } from 'node:stream';
import { SpdySession } from '../../../common/spdy/session.js';
import type { SpdyStream } from '../../../common/spdy/stream.js';
import type { Logger } from '../../../common/log/types.js';
import { EXEC_PROTOCOLS, negotiate, switchToSpdy } from './upgrade.js';
import { preV4Status, v4Status } from './status.js';
import { StreamTargetError, type ExecSession, type StreamingRuntime } from './types.js';

export interface ExecRequest {
  readonly ref: { namespace: string; pod: string; uid?: string; container: string };
  readonly command: readonly string[];
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
}

export interface StreamServeOptions {
  runtime: StreamingRuntime;
  logger: Logger;
  /** --streaming-connection-idle-timeout; 0: none. */
  idleTimeoutMs: number;
  /** How long the client has to open its streams (the reference: 30 s). */
  streamCreationTimeoutMs?: number;
  /** Sessions in flight (tests count them to prove nothing leaks). */
  live?: Set<SpdySession>;
}

function flag(url: URL, name: string): boolean {
  return url.searchParams.get(name) === '1';
}

/** The reference's NewOptions: tty drops stderr; one of stdin/stdout/stderr is required. */
export function execRequest(url: URL, ref: ExecRequest['ref'], command: readonly string[]): ExecRequest | string {
  const tty = flag(url, 'tty');
  const stderr = flag(url, 'error') && !tty;
  const req = { ref, command, tty, stdin: flag(url, 'input'), stdout: flag(url, 'output'), stderr };
  if (!req.stdin && !req.stdout && !req.stderr) return 'you must specify at least 1 of stdin, stdout, stderr';
  return req;
}

function expectedStreams(r: ExecRequest, protocol: string): Set<string> {
  const s = new Set(['error']);
  if (r.stdin) s.add('stdin');
  if (r.stdout) s.add('stdout');
  if (r.stderr) s.add('stderr');
  if (r.tty && protocol !== 'channel.k8s.io' && protocol !== 'v2.channel.k8s.io') s.add('resize');
  return s;
}

export async function serveExecSpdy(req: IncomingMessage, res: ServerResponse, socket: Duplex, head: Buffer, r: ExecRequest, o: StreamServeOptions): Promise<void> {
  if (r.tty && !o.runtime.supportsTty) {
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end('tty is not supported by this container runtime (process://); call without tty\n');
    return;
  }
  let proc: ExecSession;
  try {
    proc = await o.runtime.exec(r.ref, r.command, { tty: r.tty });
  } catch (err) {
    const status = err instanceof StreamTargetError ? err.status : 500;
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end((err as Error).message);
    return;
  }
  const protocol = negotiate(req, res, EXEC_PROTOCOLS);
  if (protocol === undefined) {
    proc.kill();
    return;
  }
  switchToSpdy(res, socket, protocol);
  const session = new SpdySession({ socket, role: 'server', head });
  o.live?.add(session);
  if (o.idleTimeoutMs > 0) (socket as Socket).setTimeout(o.idleTimeoutMs, () => session.destroy());
  await runExec(session, proc, r, protocol, o).finally(() => o.live?.delete(session));
}

async function collectStreams(session: SpdySession, want: Set<string>, timeoutMs: number): Promise<Map<string, SpdyStream> | undefined> {
  const got = new Map<string, SpdyStream>();
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    const finish = (v: Map<string, SpdyStream> | undefined): void => {
      clearTimeout(timer);
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

function pipeOut(from: NodeJS.ReadableStream, to: SpdyStream | undefined): Promise<void> {
  return new Promise((resolve) => {
    const src = from as Readable;
    if (src.readableEnded) {
      resolve();
      return;
    }
    if (to === undefined) {
      src.resume();
      src.once('end', resolve);
      src.once('close', resolve);
      return;
    }
    src.pipe(to, { end: false });
    src.once('end', resolve);
    src.once('close', resolve);
    to.once('close', resolve);
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

async function runExec(session: SpdySession, proc: ExecSession, r: ExecRequest, protocol: string, o: StreamServeOptions): Promise<void> {
  const streams = await collectStreams(session, expectedStreams(r, protocol), o.streamCreationTimeoutMs ?? 30_000);
  if (streams === undefined) {
    o.logger.info({ pod: r.ref.pod, container: r.ref.container }, 'exec: the client did not open its streams (or went away); killing the command');
    proc.kill();
    session.destroy();
    return;
  }
  const stdin = streams.get('stdin');
  if (stdin !== undefined) stdin.pipe(proc.stdin as NodeJS.WritableStream & Duplex);
  else proc.stdin.end();
  streams.get('resize')?.resume(); // no terminal on this path: sizes are read and dropped
  // The client went away: stdin is closed first (as the reference's stream teardown does), then
  // the command is killed so nothing outlives the connection.
  const onGone = (): void => {
    proc.stdin.end();
    proc.kill();
  };
  session.once('close', onGone);
  const [code] = await Promise.all([proc.exited, pipeOut(proc.stdout, streams.get('stdout')), pipeOut(proc.stderr, streams.get('stderr'))]);
  session.off('close', onGone);
  if (session.isClosed()) return;
  const errorStream = streams.get('error');
  const text = protocol === 'v4.channel.k8s.io' ? v4Status(code, r.command) : preV4Status(code, r.command);
  if (text !== '') errorStream?.write(text);
  // Every stream's data and FIN leave before GOAWAY.
  await Promise.all([...streams.values()].map((s) => finished(s)));
  await session.close();
}
