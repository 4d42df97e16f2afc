// --runonce: start the static pods once, wait until each runs or fails, print one line per pod,
// and report success only when all of them run.
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import type { PodConfig } from '../source/merger.js';
import type { PodManager } from './pod-manager.js';
import type { ContainerStatus } from '../pod/types.js';

export interface RunOnceOptions {
  manager: PodManager;
  podConfig: PodConfig;
  clock: Clock;
  logger: Logger;
  out: (line: string) => void;
  signal: AbortSignal;
  /** Give up waiting after this long. Default 120 s. */
  timeoutMs?: number;
  /** A pod counts as running once all its containers ran this long. Default 1000 ms. */
  stableMs?: number;
}

export async function runOnce(o: RunOnceOptions): Promise<number> {
  const deadline = o.clock.nowMs() + (o.timeoutMs ?? 120_000);
  const desired = o.podConfig.pods();
  if (desired.length === 0) {
    o.out('runonce: no pods found in the static pod path or manifest URL');
    return 1;
  }
  const stableMs = o.stableMs ?? 1000;
  const runningSince = new Map<string, number>();
  const settled = (uid: string): boolean => {
    const s = o.manager.status(uid);
    if (!s) return false;
    if (s.phase === 'Failed' || s.phase === 'Succeeded') return true;
    const allRunning =
      s.phase === 'Running' && s.containerStatuses.every((c) => c.state.running !== undefined);
    if (!allRunning) {
      runningSince.delete(uid);
      // a container that crashed and backs off has failed for runonce's purposes
      return s.containerStatuses.some(
        (c) =>
          c.state.waiting?.reason === 'CrashLoopBackOff' || c.lastState.terminated !== undefined,
      );
    }
    // "running" means it stays up a moment, not that it started and died at once
    const since = runningSince.get(uid) ?? o.clock.nowMs();
    runningSince.set(uid, since);
    return o.clock.nowMs() - since >= stableMs;
  };
  while (
    !desired.every((p) => settled(p.metadata.uid)) &&
    o.clock.nowMs() < deadline &&
    !o.signal.aborted
  ) {
    try {
      await o.clock.sleep(100, o.signal);
    } catch {
      break;
    }
  }
  let ok = true;
  for (const p of desired) {
    const s = o.manager.status(p.metadata.uid);
    const allRunning =
      s?.phase === 'Running' && s.containerStatuses.every((c) => c.state.running !== undefined);
    const succeeded = s?.phase === 'Succeeded';
    if (!allRunning && !succeeded) ok = false;
    const detail = s?.containerStatuses.map((c) => `${c.name}=${stateText(c)}`).join(',');
    o.out(
      `pod ${p.metadata.namespace}/${p.metadata.name}: ${s?.phase ?? 'Unknown'}` +
        `${s?.reason ? ` (${s.reason})` : ''}${detail ? ` ${detail}` : ''}`,
    );
  }
  await o.manager.workers.idle();
  o.out(ok ? `runonce: all ${desired.length} pod(s) running` : 'runonce: some pods did not run');
  return ok ? 0 : 1;
}

/** A container's state in the summary: running, terminated(<exit code>) or its waiting reason. */
function stateText(c: ContainerStatus): string {
  if (c.state.running) return 'running';
  if (c.state.terminated) return `terminated(${c.state.terminated.exitCode})`;
  return c.state.waiting?.reason ?? 'unknown';
}
