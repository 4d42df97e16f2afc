// Clean-ups that must run however the test or benchmark process ends: on a normal exit, and on
// SIGTERM, SIGINT or SIGHUP (a killed benchmark, a test runner's timeout, Ctrl-C), where Node
// would otherwise end at once without an 'exit' event and leave the servers it started running.
// On such a signal every registered clean-up runs, then the signal is raised again so the process
// ends as it would have.

const cleanups = new Set<() => void>();
const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
let installed = false;

function runAll(): void {
  for (const fn of [...cleanups]) {
    cleanups.delete(fn);
    try {
      fn();
    } catch {
      // a clean-up that fails must not keep the others from running
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  runAll();
  for (const s of SIGNALS) process.off(s, onSignal);
  // Raised again only when nothing else handles it, so the process ends as it would have.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.once('exit', runAll);
  for (const s of SIGNALS) process.on(s, onSignal);
}

/** Runs `fn` once when the process ends (exit or signal); returns its removal. */
export function onProcessEnd(fn: () => void): () => void {
  install();
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}
