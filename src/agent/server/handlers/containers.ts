// /containerLogs/{ns}/{pod}/{container} (tailLines, follow, timestamps, sinceSeconds, sinceTime,
// limitBytes), and the non-interactive /run and /exec: a command in a container, its output as the
// response. Following a log is a streaming connection: it closes after the streaming idle timeout.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../../common/util/clock.js';
import {
  ContainerNotFoundError,
  NoPreviousContainerError,
  type CommandRunner,
  type ContainerLogOptions,
  type ContainerLogs,
  type ContainerRef,
} from '../types.js';
import { httpError, notFound, sendText } from './respond.js';
import { userMessage } from '../../../common/util/errors.js';

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

function nonNegativeInt(params: URLSearchParams, name: string): number | undefined | Error {
  const v = params.get(name);
  if (v === null || v === '') return undefined;
  if (!/^\d+$/.test(v)) return new Error(`${name} must be a non-negative integer, got "${v}"`);
  return Number(v);
}

function boolParam(params: URLSearchParams, name: string): boolean | Error {
  const v = params.get(name);
  if (v === null || v === '') return false;
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(v)) return false;
  return new Error(`${name} must be true or false, got "${v}"`);
}

/**
 * sinceTime (RFC 3339, as plat-apiserver and the reference's API server send it) in ms since the
 * epoch.
 */
function sinceTimeMs(params: URLSearchParams): number | undefined | Error {
  const v = params.get('sinceTime');
  if (v === null || v === '') return undefined;
  if (
    !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/.test(v) ||
    Number.isNaN(Date.parse(v))
  ) {
    return new Error(
      `sinceTime must be an RFC 3339 time such as 2006-01-02T15:04:05Z, got "${v.slice(0, 64)}"`,
    );
  }
  return Date.parse(v);
}

export interface StreamingOptions {
  /** 0 means no timeout. */
  streamingIdleTimeoutMs: number;
  /** "Now" for sinceSeconds. */
  clock: Clock;
}

/** The earliest time to show: sinceSeconds (counted back from now) is taken before sinceTime. */
function sinceOption(
  sinceSeconds: number | undefined,
  sinceTime: number | undefined,
  clock: Clock,
): { sinceMs?: number } {
  if (sinceSeconds !== undefined) return { sinceMs: clock.nowMs() - sinceSeconds * 1000 };
  return sinceTime !== undefined ? { sinceMs: sinceTime } : {};
}

/** The options of a /containerLogs query, or the first bad parameter's error. */
function logOptions(params: URLSearchParams, clock: Clock): ContainerLogOptions | Error {
  const tailLines = nonNegativeInt(params, 'tailLines');
  const sinceSeconds = nonNegativeInt(params, 'sinceSeconds');
  const limitBytes = nonNegativeInt(params, 'limitBytes');
  const follow = boolParam(params, 'follow');
  const timestamps = boolParam(params, 'timestamps');
  const previous = boolParam(params, 'previous');
  const sinceTime = sinceTimeMs(params);
  if (tailLines instanceof Error) return tailLines;
  if (sinceSeconds instanceof Error) return sinceSeconds;
  if (limitBytes instanceof Error) return limitBytes;
  if (follow instanceof Error) return follow;
  if (timestamps instanceof Error) return timestamps;
  if (previous instanceof Error) return previous;
  if (sinceTime instanceof Error) return sinceTime;
  return {
    follow,
    timestamps,
    ...(tailLines !== undefined ? { tailLines } : {}),
    ...sinceOption(sinceSeconds, sinceTime, clock),
    ...(previous ? { previous: true } : {}),
    ...(limitBytes !== undefined ? { limitBytes } : {}),
  };
}

/** Writes the log as the response; an error before the first byte becomes its status. */
async function writeLogResponse(
  req: IncomingMessage,
  res: ServerResponse,
  logs: ContainerLogs,
  target: { ref: ContainerRef; options: ContainerLogOptions },
  streaming: StreamingOptions,
): Promise<void> {
  const abort = new AbortController();
  const onClose = (): void => abort.abort(new Error('client went away'));
  res.on('close', onClose);
  if (target.options.follow && streaming.streamingIdleTimeoutMs > 0) {
    req.setTimeout(streaming.streamingIdleTimeoutMs, () => res.destroy());
  }
  try {
    // Headers are sent with the first byte, so a not-found error can still become a 404.
    await logs.writeLogs(target.ref, target.options, res, abort.signal);
    if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/plain' });
    res.end();
  } catch (err) {
    if (err instanceof ContainerNotFoundError) httpError(res, 404, err.message);
    else if (err instanceof NoPreviousContainerError) httpError(res, 400, err.message);
    else if (abort.signal.aborted) res.destroy();
    else httpError(res, 500, `failed to get container logs: ${userMessage(err)}`);
  } finally {
    res.off('close', onClose);
  }
}

export async function serveContainerLogs(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  url: URL,
  logs: ContainerLogs | undefined,
  streaming: StreamingOptions,
): Promise<void> {
  const parts = segments(path, '/containerLogs/');
  const ref = parts?.length === 3 ? containerRef(parts) : undefined;
  if (ref === undefined) {
    httpError(res, 400, 'expected /containerLogs/{namespace}/{pod}/{container}');
    return;
  }
  if (logs === undefined) {
    notFound(res);
    return;
  }
  const options = logOptions(url.searchParams, streaming.clock);
  if (options instanceof Error) {
    httpError(res, 400, options.message);
    return;
  }
  await writeLogResponse(req, res, logs, { ref, options }, streaming);
}

function containerRef(parts: readonly string[]): ContainerRef | undefined {
  // the defaults never apply: the length is checked first
  if (parts.length === 3) {
    const [namespace = '', pod = '', container = ''] = parts;
    return { namespace, pod, container };
  }
  if (parts.length === 4) {
    const [namespace = '', pod = '', uid = '', container = ''] = parts;
    return { namespace, pod, uid, container };
  }
  return undefined;
}

/**
 * Why a command cannot be run, or undefined. An exec without a program (no `command`, or
 * `command=`) is the reference client's "you must specify at least one command for the
 * container"; a NUL byte cannot reach a program's argv.
 */
export function commandProblem(
  command: readonly string[],
  kind: 'run' | 'exec',
): string | undefined {
  const param = kind === 'run' ? 'cmd' : 'command';
  const accepted =
    kind === 'run' ? 'cmd=<program> <args...>' : 'command=<program>&command=<arg>...';
  if (command.length === 0 || command[0] === '')
    return `you must specify at least one command for the container: give ${accepted}`;
  const i = command.findIndex((a) => a.includes('\0'));
  if (i >= 0)
    return `${param} argument ${i} contains a NUL character, which a command line cannot hold`;
  return undefined;
}

/** /run/{ns}/{pod}[/{uid}]/{container}?cmd=... (POST) and /exec/...?command=a&command=b. */
export async function serveCommand(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  url: URL,
  runner: CommandRunner | undefined,
  kind: 'run' | 'exec',
): Promise<void> {
  if (kind === 'run' && req.method !== 'POST') {
    httpError(res, 405, 'Method Not Allowed');
    return;
  }
  if (kind === 'exec' && req.method !== 'POST' && req.method !== 'GET') {
    httpError(res, 405, 'Method Not Allowed');
    return;
  }
  if (req.headers.upgrade !== undefined) {
    httpError(
      res,
      400,
      'interactive (upgraded) exec is not supported; call without Upgrade to run a ' +
        'command non-interactively',
    );
    return;
  }
  const parts = segments(path, `/${kind}/`);
  const ref = parts === undefined ? undefined : containerRef(parts);
  if (ref === undefined) {
    httpError(res, 400, `expected /${kind}/{namespace}/{pod}[/{uid}]/{container}`);
    return;
  }
  const command =
    kind === 'run'
      ? (url.searchParams.get('cmd') ?? '').split(/\s+/).filter((s) => s !== '')
      : url.searchParams.getAll('command');
  const problem = commandProblem(command, kind);
  if (problem !== undefined) {
    httpError(res, 400, problem);
    return;
  }
  if (runner === undefined) {
    notFound(res);
    return;
  }
  const abort = new AbortController();
  const onClose = (): void => abort.abort(new Error('client went away'));
  res.on('close', onClose);
  try {
    const r = await runner.run(ref, command, { timeoutMs: 5 * 60_000, signal: abort.signal });
    res.setHeader('x-exit-code', String(r.exitCode));
    sendText(res, 200, Buffer.concat([r.stdout, r.stderr]));
  } catch (err) {
    if (err instanceof ContainerNotFoundError) httpError(res, 404, err.message);
    else if (err instanceof NoPreviousContainerError) httpError(res, 400, err.message);
    else httpError(res, 500, `failed to run command in container: ${userMessage(err)}`);
  } finally {
    res.off('close', onClose);
  }
}
