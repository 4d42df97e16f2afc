// `nodeagent [flags]`: parse flags -> --help / --version -> deprecation notices (command-line
// order) -> config file + drop-ins + flags -> validation (every problem at once) ->
// --print-config, or host checks and the agent. Bad input ends with one line per problem on
// stderr and exit status 1, never a stack trace. Modules are imported on the path that needs
// them, so --help, --version and --print-config stay fast.
import type { ParsedFlags } from './flag-spec.js';
import { FLAGS } from './flags.js';
import { parseArgs } from './parser.js';
import { ConfigError, userMessage } from '../../common/util/errors.js';
import type { EffectiveConfiguration } from '../config/effective.js';
import type { NodeAgentConfiguration } from '../config/schema.js';
import type { NodeAgentFlags } from '../config/flags-type.js';
import type { Logger } from '../../common/log/types.js';

export interface MainIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processIO: MainIO = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
};

type RunAgent = (opts: { config: NodeAgentConfiguration; flags: NodeAgentFlags; logger: Logger; signal: AbortSignal }) => Promise<number>;

/** Prints the problems of `err` (one line each) and returns exit status 1. */
function fail(io: MainIO, err: unknown): number {
  const lines = err instanceof ConfigError ? err.problems : [userMessage(err)];
  for (const l of lines) io.stderr(`${l}\n`);
  return 1;
}


async function deprecations(parsed: ParsedFlags, io: MainIO): Promise<void> {
  const noted = new Set(FLAGS.filter((f) => f.note !== undefined).map((f) => f.name));
  if (!parsed.order.some((n) => noted.has(n))) return;
  const { deprecationWarnings } = await import('./deprecation.js');
  for (const w of deprecationWarnings(parsed)) io.stderr(`${w}\n`);
}

/** The agent itself: a literal import, so bundlers make it one lazy chunk loaded only here. */
async function loadAgent(): Promise<RunAgent> {
  const { runAgent } = await import('../agent.js');
  return runAgent;
}

async function runWithHost(eff: EffectiveConfiguration, io: MainIO): Promise<number> {
  const [{ createLogger }, { loggerOptionsFromConfig }, { runHostChecks }] = await Promise.all([
    import('../../common/log/logger.js'),
    import('../config/logger-options.js'),
    import('./host-checks.js'),
  ]);
  const handle = createLogger(loggerOptionsFromConfig(eff.config));
  const logger = handle.logger;
  const ac = new AbortController();
  let contention = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (ac.signal.aborted) {
      // A second signal while shutting down: the operator wants out now.
      logger.warn({ signal }, 'Received a second signal while shutting down: exiting at once');
      handle.close();
      process.exit(1);
    }
    logger.info({ signal }, 'Received signal, shutting down');
    ac.abort(new Error(`received ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let release: (() => Promise<void>) | undefined;
  try {
    try {
      const host = await runHostChecks({
        config: eff.config,
        flags: eff.flags,
        logger,
        signal: ac.signal,
        onLockContention: () => {
          contention = true;
          ac.abort(new Error('lock contention'));
        },
      });
      release = host.release;
    } catch (err) {
      handle.flush();
      return fail(io, err);
    }
    if (eff.config.logging.verbosity >= 5) {
      // As the reference does at V(5): the whole effective configuration, secrets masked.
      const { redactConfiguration } = await import('../config/redact.js');
      logger.info({ v: 5, config: redactConfiguration(eff.config), flags: eff.flags }, 'Effective configuration');
    }
    const runAgent = await loadAgent();
    const code = await runAgent({ config: eff.config, flags: eff.flags, logger, signal: ac.signal });
    return contention ? 0 : code;
  } catch (err) {
    // Bad input found late (by a part) is one plain line; anything else is a log line.
    if (err instanceof ConfigError) {
      handle.flush();
      return fail(io, err);
    }
    logger.error({ err: { message: userMessage(err) } }, 'nodeagent stopped with an error');
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await release?.();
    handle.close();
  }
}

export async function main(argv: string[], io: MainIO = processIO): Promise<number> {
  let parsed: ParsedFlags;
  try {
    parsed = parseArgs(argv);
  } catch (err) {
    return fail(io, err);
  }
  if (parsed.values.get('help') === true) {
    const { renderHelp } = await import('./help.js');
    io.stdout(renderHelp());
    return 0;
  }
  const version = parsed.values.get('version');
  if (version === 'true' || version === 'raw') {
    const { versionOutput } = await import('./version.js');
    io.stdout(versionOutput(parsed) ?? '');
    return 0;
  }
  await deprecations(parsed, io);

  const { buildConfiguration } = await import('../config/effective.js');
  let eff: EffectiveConfiguration;
  try {
    eff = await buildConfiguration({ specs: FLAGS, parsed });
  } catch (err) {
    return fail(io, err);
  }
  // Dropped fields are warnings, written before any logger exists, in the log's own format.
  if (eff.warnings.length > 0) {
    const { renderTextLine } = await import('../../common/log/text-format.js');
    for (const w of eff.warnings) io.stderr(renderTextLine({ level: 40, time: Date.now(), component: 'config', msg: w }));
  }
  if (eff.problems.length > 0) {
    for (const p of eff.problems) io.stderr(`${p}\n`);
    return 1;
  }
  if (typeof version === 'string' && version.startsWith('v')) eff.flags.reportedVersion = version;
  if (parsed.values.get('print-config') === true) {
    const { renderPrintConfig } = await import('../config/print.js');
    io.stdout(renderPrintConfig(eff.config, eff.flags));
    return 0;
  }
  return runWithHost(eff, io);
}
