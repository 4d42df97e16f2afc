// /healthz with its checks ping and syncloop, in the shape of the reference's healthz package:
// `ok` when every check passes, otherwise 500 listing `[+]name ok` / `[-]name failed: reason
// withheld` lines. `?verbose` lists the checks even when all pass.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../../common/util/clock.js';
import type { SyncLoopMonitor } from '../types.js';
import { httpError, notFound, sendText } from './respond.js';

export interface HealthCheck {
  readonly name: string;
  /** Returns undefined when healthy, or why not. */
  check(): string | undefined;
}

export const pingCheck: HealthCheck = { name: 'ping', check: () => undefined };

/**
 * The reference's sync-loop check: unhealthy when the loop has not started an iteration for
 * twice the resync interval, at least 5 minutes.
 */
export function syncLoopCheck(
  monitor: SyncLoopMonitor,
  clock: Clock,
  resyncIntervalMs = 60_000,
): HealthCheck {
  const limitMs = Math.max(2 * resyncIntervalMs, 5 * 60_000);
  return {
    name: 'syncloop',
    check: () => {
      const last = monitor.lastIterationMs();
      if (last === undefined) return undefined;
      const age = clock.nowMs() - last;
      return age > limitMs
        ? `sync loop took longer than expected (last iteration ${Math.round(age / 1000)}s ago)`
        : undefined;
    },
  };
}

export function serveHealthz(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  checks: readonly HealthCheck[],
): void {
  if (path === '/healthz' || path === '/healthz/') {
    const results = checks.map((c) => ({ name: c.name, problem: c.check() }));
    const failed = results.some((r) => r.problem !== undefined);
    const verbose = new URL(req.url ?? '/', 'http://x').searchParams.has('verbose');
    if (!failed && !verbose) {
      sendText(res, 200, 'ok');
      return;
    }
    const lines = results.map((r) =>
      r.problem === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: reason withheld`,
    );
    if (failed) {
      httpError(res, 500, `${lines.join('\n')}\nhealthz check failed`);
    } else {
      sendText(res, 200, `${lines.join('\n')}\nhealthz check passed\n`);
    }
    return;
  }
  const name = path.slice('/healthz/'.length);
  const check = checks.find((c) => c.name === name);
  if (check === undefined) {
    notFound(res);
    return;
  }
  const problem = check.check();
  if (problem === undefined) sendText(res, 200, 'ok');
  else httpError(res, 500, `internal server error: ${problem}`);
}
