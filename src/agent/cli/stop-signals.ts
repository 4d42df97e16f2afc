// SIGINT and SIGTERM, handled from the moment main() starts: a signal at any stage of start-up
// (config, host checks, bootstrap, building the parts, the first sync) aborts one signal that
// every stage watches, so the process stops what has started and exits 0. A second signal while
// stopping exits at once with status 1, as an operator who asks twice expects.
import type { Logger } from '../../common/log/types.js';

export interface StopSignals {
  /** Aborted by the first SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  /** Logs from now on (and logs a signal that came before a logger existed). */
  attachLogger(logger: Logger, flush: () => void): void;
  dispose(): void;
}

type Proc = Pick<NodeJS.Process, 'on' | 'off' | 'exit'>;

export function installStopSignals(proc: Proc = process): StopSignals {
  const ac = new AbortController();
  let logger: Logger | undefined;
  let flush = (): void => undefined;
  let received: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (ac.signal.aborted) {
      logger?.warn({ signal }, 'Received a second signal while shutting down: exiting at once');
      flush();
      proc.exit(1);
      return;
    }
    received = signal;
    logger?.info({ signal }, 'Received signal, shutting down');
    ac.abort(new Error(`received ${signal}`));
  };
  proc.on('SIGINT', onSignal);
  proc.on('SIGTERM', onSignal);
  return {
    signal: ac.signal,
    attachLogger(l, f) {
      logger = l;
      flush = f;
      if (received !== undefined) l.info({ signal: received }, 'Received signal, shutting down');
    },
    dispose() {
      proc.off('SIGINT', onSignal);
      proc.off('SIGTERM', onSignal);
    },
  };
}
