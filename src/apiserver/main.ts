// plat-apiserver's entry point: the options (flags; --validate-config and `token` are commands of
// their own), then the stages of start/: config → build → run, and a clean stop on
// SIGTERM/SIGINT. Returns an exit code on failure and undefined while serving.

import { createLogger } from '../common/log/logger.js';
import { systemClock } from '../common/util/clock.js';
import { CertificateError, NodeAgentError, userMessage } from '../common/util/errors.js';
import { setYamlNoteSink } from '../common/util/yaml-notes.js';
import { runTokenCommand } from './bootstrap-token/token-command.js';
import { parseFlags, type ApiServerFlags } from './flags.js';
import { EXTRA_FLAGS } from './plugins.js';
import { renderApiServerHelp } from './help.js';
import { startApiServer, type RunningApiServer } from './start/run.js';
import { isValidateConfigInvocation, runValidateConfig } from './config/validate-command.js';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export { startApiServer, type RunningApiServer } from './start/run.js';
/** For bin/plat-apiserver: uncaught exceptions reported through the bundle's source maps. */
export { reportUncaught } from '../common/log/uncaught-report.js';

type Log = ReturnType<typeof createLogger>;

/**
 * A helper's script beside this entry: `<name>.mjs` next to the bundle (scripts/bundle.mjs builds
 * it as another entry), `compiled` in the compiled tree.
 */
function shippedEntry(name: string, compiled: string): string {
  const bundled = fileURLToPath(new URL(`./${name}.mjs`, import.meta.url));
  return existsSync(bundled) ? bundled : fileURLToPath(new URL(compiled, import.meta.url));
}

/** The TLS front process's script (--tls-processes). */
export function shippedTlsFrontEntry(): string {
  return shippedEntry('tls-front', './front/tls-front.js');
}

/** The worker thread's script (--worker-threads). */
export function shippedWorkerThreadEntry(): string {
  return shippedEntry('worker-thread', './workers/thread-main.js');
}

/**
 * The commands of their own (--validate-config FILE..., `token`): their exit code, else undefined.
 */
async function runCommand(argv: string[]): Promise<number | undefined> {
  // --- configuration-file flags: --validate-config FILE... checks files and exits ---
  if (isValidateConfigInvocation(argv)) {
    return runValidateConfig(argv, {
      out: (t) => process.stdout.write(t),
      err: (t) => process.stderr.write(t),
    });
  }
  // --- end configuration-file flags ---
  if (argv[0] === 'token') {
    return runTokenCommand(argv.slice(1), {
      out: (t) => process.stdout.write(t),
      err: (t) => process.stderr.write(t),
      now: () => systemClock.now(),
    });
  }
  return undefined;
}

/** The flags, or the exit code once --help or --version is answered or a flag is refused. */
function readFlags(argv: string[]): ApiServerFlags | number {
  try {
    const parsed = parseFlags(argv, EXTRA_FLAGS);
    if (parsed.kind === 'help' || parsed.kind === 'version') {
      process.stdout.write(parsed.kind === 'help' ? renderApiServerHelp(EXTRA_FLAGS) : parsed.text);
      return 0;
    }
    return parsed.flags;
  } catch (err) {
    process.stderr.write(`plat-apiserver: ${userMessage(err)}\n`);
    return 1;
  }
}

/** Stops the server once on SIGTERM or SIGINT; the exit code says whether the stop went well. */
function stopOnSignals(running: RunningApiServer, log: Log): void {
  let stopping = false;
  const shutdown = (sig: string): void => {
    if (stopping) return;
    stopping = true;
    log.logger.info({ signal: sig }, 'stopping plat-apiserver');
    running.stop().then(
      () => {
        log.close();
        process.exitCode = 0;
      },
      (err: unknown) => {
        log.logger.error({ err }, 'error while stopping');
        log.close();
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

export async function main(argv: string[]): Promise<number | undefined> {
  const commandExit = await runCommand(argv);
  if (commandExit !== undefined) return commandExit;
  const flags = readFlags(argv);
  if (typeof flags === 'number') return flags;
  const log = createLogger({ verbosity: flags.verbosity, component: 'plat-apiserver' });
  setYamlNoteSink((note) => log.logger.warn({ detail: note }, 'YAML warning ignored'));
  let running: RunningApiServer;
  try {
    running = await startApiServer(flags, log.logger, undefined, {
      tlsFrontEntry: shippedTlsFrontEntry(),
      workerThreadEntry: shippedWorkerThreadEntry(),
    });
  } catch (err) {
    const known = err instanceof NodeAgentError || err instanceof CertificateError;
    log.logger.error(
      known ? { error: userMessage(err) } : { err },
      'plat-apiserver failed to start',
    );
    if (!known) process.stderr.write(`plat-apiserver: ${userMessage(err)}\n`);
    log.close();
    return 1;
  }
  stopOnSignals(running, log);
  return undefined;
}
