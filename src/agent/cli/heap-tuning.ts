// V8 heap tuning of the running agent (not of --help, --version or --print-config). The agent is a
// long-lived daemon whose live heap is small (about 12 MB idle, 25 MB with 1,000 pods), while
// V8's defaults size the heap for throughput: the young generation grows to two 16 MB
// semi-spaces after a burst of pod starts and the old generation keeps two to four times its live
// size until the next full collection, which, at the agent's low steady allocation rate, comes
// late. `--optimize-for-size` sizes both for memory (the young generation stays small, marking
// starts early, the memory reducer runs whatever the allocation rate), but it costs CPU: with it
// always on, 1,000 pods took 1.8x as long to start (61 s against 33 s, same run, load 14-20).
// So the agent turns it on only while it is quiet (its event loop busy under 15% of the time over
// 5 s) and off again when it is busy (over 30%): a burst of pod starts runs with V8's defaults,
// the steady state with the smaller heap. The event loop's utilisation, not the CPU time: on a
// loaded machine a busy agent gets little CPU, yet its loop stays busy. Measured with bench/agent-scale: see the README's table.
// The flag is read by V8 at each collection, so setting it at run time takes effect (flags that
// size the heap when it is created, such as --max-semi-space-size, would not: those belong on
// the node command line). A flag the operator gave node (on its command line or in NODE_OPTIONS)
// is left as given: the agent does not switch it.
import { setFlagsFromString } from 'node:v8';
import { everyMs, type Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';

/** The V8 flag the agent switches on itself while quiet, and why (above). */
export const MEMORY_MODE_FLAG = '--optimize-for-size';

/** The flag's name as node and V8 spell it: `--optimize_for_size` and `--no-optimize-for-size` name it too. */
function flagName(arg: string): string {
  return arg.replace(/^--(no-)?/, '').split('=')[0]?.replace(/_/g, '-') ?? '';
}

/** Whether the operator gave node the memory-mode flag, in any spelling (then the agent leaves it). */
export function operatorChoseHeapMode(operatorArgs: readonly string[]): boolean {
  const name = flagName(MEMORY_MODE_FLAG);
  return operatorArgs.some((a) => a.startsWith('--') && flagName(a) === name);
}

export interface HeapModeOptions {
  clock: Clock;
  logger: Logger;
  signal: AbortSignal;
  /** The node options the operator gave (operatorNodeArgs()). */
  operatorArgs: readonly string[];
  /** The share of time the event loop was busy since the previous call (0..1). */
  loopBusy?: () => number;
  setFlag?: (flag: string) => void;
  periodMs?: number;
}

/** Below this share of busy event-loop time over a period the agent is quiet: memory mode on. */
export const QUIET_LOOP_SHARE = 0.15;
/** Above this share it is busy: memory mode off (between the two, it stays as it is). */
export const BUSY_LOOP_SHARE = 0.3;

/** performance.eventLoopUtilization since the previous call. */
function loopBusySinceLastCall(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const share = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return share;
  };
}

/**
 * Switches MEMORY_MODE_FLAG on while the agent is quiet and off while it is busy, until `signal`
 * aborts; does nothing (and says so) when the operator chose the flag. Returns the switch's
 * current state for tests.
 */
export function startHeapMode(o: HeapModeOptions): () => boolean {
  let memory = false;
  if (operatorChoseHeapMode(o.operatorArgs)) {
    o.logger.info({ flag: MEMORY_MODE_FLAG }, 'V8 heap: the operator gave node this flag; the agent leaves it as given instead of switching it with its load');
    return () => memory;
  }
  const loopBusy = o.loopBusy ?? loopBusySinceLastCall();
  const setFlag = o.setFlag ?? setFlagsFromString;
  const stop = everyMs(o.clock, o.periodMs ?? 5000, () => {
    const share = loopBusy();
    const want = memory ? share < BUSY_LOOP_SHARE : share < QUIET_LOOP_SHARE;
    if (want === memory) return;
    memory = want;
    setFlag(want ? MEMORY_MODE_FLAG : MEMORY_MODE_FLAG.replace(/^--/, '--no-'));
    o.logger.info({ v: 3, loopBusyPercent: Math.round(share * 1000) / 10 }, want ? 'V8 heap sized for memory: the agent is quiet' : 'V8 heap sized for throughput: the agent is busy');
  }, { unref: true });
  o.signal.addEventListener('abort', stop, { once: true });
  if (o.signal.aborted) stop();
  return () => memory;
}

/** The node options the operator gave this process: its command line and NODE_OPTIONS. */
export function operatorNodeArgs(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): string[] {
  return [...execArgv, ...(env['NODE_OPTIONS'] ?? '').split(/\s+/).filter((a) => a !== '')];
}
