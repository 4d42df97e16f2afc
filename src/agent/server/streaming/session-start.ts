// What exec and attach share before any protocol is spoken: the request from the query (the
// reference's remotecommand NewOptions), starting the process or attaching to the container
// (a refusal is an ordinary HTTP answer with the reference's status and message), and the
// text the error stream carries at the end.

import type { ServerResponse } from 'node:http';
import type { Clock } from '../../../common/util/clock.js';
import type { Logger } from '../../../common/log/types.js';
import { userMessage } from '../../../common/util/errors.js';
import { preV4Status, v4Status } from './status.js';
import {
  StreamTargetError,
  type ContainerRef,
  type ExecSession,
  type StreamingRuntime,
} from './types.js';

export interface ExecRequest {
  readonly kind: 'exec' | 'attach';
  readonly ref: ContainerRef;
  /** exec: the command; attach: empty. */
  readonly command: readonly string[];
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
}

/** A live connection (SPDY session or WebSocket) that tests count to prove nothing leaks. */
export interface LiveConnection {
  isClosed(): boolean;
}

export interface StreamServeOptions {
  runtime: StreamingRuntime;
  logger: Logger;
  /** --streaming-connection-idle-timeout; 0: none. */
  idleTimeoutMs: number;
  /** Drives the idle timeout (default: the system clock). */
  clock?: Clock;
  /** How long the client has to open its streams (the reference: 30 s). */
  streamCreationTimeoutMs?: number;
  /** Connections in flight (tests count them to prove nothing leaks). */
  live?: Set<LiveConnection>;
}

function flag(url: URL, name: string): boolean {
  return url.searchParams.get(name) === '1';
}

/** The reference's NewOptions: tty drops stderr; one of stdin/stdout/stderr is required. */
export function execRequest(
  kind: ExecRequest['kind'],
  url: URL,
  ref: ContainerRef,
  command: readonly string[],
): ExecRequest | string {
  const tty = flag(url, 'tty');
  const stderr = flag(url, 'error') && !tty;
  const req = {
    kind,
    ref,
    command,
    tty,
    stdin: flag(url, 'input'),
    stdout: flag(url, 'output'),
    stderr,
  };
  if (!req.stdin && !req.stdout && !req.stderr)
    return 'you must specify at least 1 of stdin, stdout, stderr';
  return req;
}

function refuse(res: ServerResponse, status: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' })
    .end(message);
}

/** Starts the exec or the attach; on a refusal answers it and returns undefined. */
export async function startSession(
  res: ServerResponse,
  r: ExecRequest,
  o: StreamServeOptions,
): Promise<ExecSession | undefined> {
  if (r.kind === 'exec' && r.tty && !o.runtime.supportsTty) {
    refuse(res, 400, 'tty is not supported by this container runtime; call without tty\n');
    return undefined;
  }
  try {
    if (r.kind === 'attach')
      return await o.runtime.attach(r.ref, {
        stdin: r.stdin,
        stdout: r.stdout,
        stderr: r.stderr,
        tty: r.tty,
      });
    return await o.runtime.exec(r.ref, r.command, { tty: r.tty });
  } catch (err) {
    const status = err instanceof StreamTargetError ? err.status : 500;
    refuse(res, status, userMessage(err));
    return undefined;
  }
}

/** The error stream's last words: exec's exit code (v4 Status or plain text); attach: success. */
export function finalStatus(r: ExecRequest, v4: boolean, code: number): string {
  if (r.kind === 'attach') return v4 ? v4Status(0, []) : '';
  return v4 ? v4Status(code, r.command) : preV4Status(code, r.command);
}
