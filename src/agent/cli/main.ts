// `nodeagent [flags]`: parse flags -> --help / --version -> deprecation notices (command-line
// order) -> config file + drop-ins + flags -> validation (every problem at once) ->
// --print-config, or host checks and the agent. Bad input ends with one line per problem on
// stderr and exit status 1, never a stack trace. Modules are imported on the path that needs
// them, so --help, --version and --print-config stay fast.
import type { ParsedFlags } from './flag-spec.js';
import { FLAGS } from './flags.js';
import { parseArgs } from './parser.js';
import { profileOnCommandLine, translateReferenceFlags } from './reference-flags.js';
import {
  commandLineSignals,
  decideProfile,
  inferredProfileMessage,
  selectProfile,
} from './profile-signals.js';
import { criEndpointProblems } from './cri-endpoint.js';
import {
  DEFAULT_PLATFORM_PROFILE,
  isPlatformProfile,
  unknownProfileMessage,
  type PlatformProfile,
} from '../../common/names.js';
import { ConfigError, userMessage } from '../../common/util/errors.js';
import type { EffectiveConfiguration } from '../config/effective.js';
import { newPreRead, type PreRead } from '../config/pre-read.js';
import type { NodeAgentConfiguration } from '../config/schema.js';
import type { NodeAgentFlags } from '../config/flags-type.js';
import type { Logger } from '../../common/log/types.js';
import type { LoggerHandle } from '../../common/log/logger.js';
import type * as HostChecksModule from './host-checks.js';
import { maskUrlUserinfo } from '../../common/util/url-userinfo.js';
import { systemClock } from '../../common/util/clock.js';
import { installStopSignals, type StopSignals } from './stop-signals.js';
import { setHeapGrowth } from './heap-growth.js';

export interface MainIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processIO: MainIO = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
};

type RunAgent = (opts: {
  config: NodeAgentConfiguration;
  flags: NodeAgentFlags;
  logger: Logger;
  signal: AbortSignal;
  onFatal: (err: Error) => void;
  onBuilt: () => void;
  checkHost: () => Promise<unknown>;
}) => Promise<number>;
type HostChecks = typeof HostChecksModule;

/** Prints the problems of `err` (one line each) and returns exit status 1. */
function fail(io: MainIO, err: unknown): number {
  const lines = err instanceof ConfigError ? err.problems : [userMessage(err)];
  for (const l of lines) io.stderr(`${maskUrlUserinfo(l)}\n`);
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
  const { runAgent } = await import('../start/agent.js');
  return runAgent;
}

/** The stop signal came before or during start-up: what has started is stopped; status 0. */
function stoppedDuringStartup(logger: Logger, stage: string, err?: unknown): number {
  logger.info(
    { stage, ...(err === undefined ? {} : { err: userMessage(err) }) },
    'nodeagent stopped during start-up',
  );
  return 0;
}

/**
 * What the run learns from callbacks: lock contention, a fatal part, a refused host, and what to
 * release at the end.
 */
interface RunState {
  contention: boolean;
  fatal: boolean;
  /** Why the host checks refused the host (they run while bootstrap does). */
  refused?: unknown;
  release?: () => Promise<void>;
}

/** The logger of the configuration, attached to the stop signals so a stop can flush it. */
async function startLogging(
  eff: EffectiveConfiguration,
  stops: StopSignals,
): Promise<LoggerHandle> {
  const [{ createLogger }, { loggerOptionsFromConfig }, { setYamlNoteSink }] = await Promise.all([
    import('../../common/log/logger.js'),
    import('../config/logger-options.js'),
    import('../../common/util/yaml-notes.js'),
  ]);
  const handle = createLogger(loggerOptionsFromConfig(eff.config));
  stops.attachLogger(handle.logger, () => handle.close());
  setYamlNoteSink((note) => handle.logger.warn({ detail: note }, 'YAML warning ignored'));
  return handle;
}

/**
 * The lock file (--lock-file); a number is the exit status when it cannot be taken or a stop came.
 */
async function takeLock(
  hostChecks: HostChecks,
  eff: EffectiveConfiguration,
  io: MainIO,
  handle: LoggerHandle,
  ac: AbortController,
  state: RunState,
): Promise<number | undefined> {
  const logger = handle.logger;
  logger.info({ v: 2 }, 'running the host checks');
  try {
    const lock = await hostChecks.acquireHostLock({
      config: eff.config,
      flags: eff.flags,
      logger,
      signal: ac.signal,
      onLockContention: () => {
        state.contention = true;
        ac.abort(new Error('lock contention'));
      },
    });
    state.release = async () => {
      await lock?.release();
    };
    return undefined;
  } catch (err) {
    if (ac.signal.aborted) return stoppedDuringStartup(logger, 'host checks', err);
    handle.flush();
    return fail(io, err);
  }
}

/**
 * The host's own checks (host-checks.ts), then the start-up notes, run once the agent's client
 * certificate is settled (the reference checks the host after bootstrap); the agent's parts wait
 * for them. A refusal stops the start and is the run's one line (see refusedHost).
 */
function checkHost(
  hostChecks: HostChecks,
  eff: EffectiveConfiguration,
  logger: Logger,
  ac: AbortController,
  state: RunState,
): Promise<unknown> {
  const checked = hostChecks
    .checkHostSettings({ config: eff.config, flags: eff.flags, logger })
    .then(() => logServingAndConfiguration(eff, logger));
  checked.catch((err: unknown) => {
    state.refused = err;
    ac.abort(err);
  });
  return checked;
}

/** The host checks refused the host: their one line, status 1. */
function refusedHost(io: MainIO, handle: LoggerHandle, state: RunState): number {
  handle.flush();
  return fail(io, state.refused);
}

/**
 * The start-up notes after the host checks (so that a refused host still gets exactly one line).
 */
async function logServingAndConfiguration(
  eff: EffectiveConfiguration,
  logger: Logger,
): Promise<void> {
  const { unsafeServingWarning } = await import('../config/unsafe-serving.js');
  const unsafe = unsafeServingWarning(eff.config);
  if (unsafe !== undefined) logger.warn({}, `Unsafe serving configuration: ${unsafe}`);
  if (eff.config.logging.verbosity >= 5) {
    // As the reference does at V(5): the whole effective configuration, secrets masked.
    const { redactConfiguration } = await import('../config/redact.js');
    logger.info(
      { v: 5, config: redactConfiguration(eff.config), flags: eff.flags },
      'Effective configuration',
    );
  }
}

/** The exit status of a run that threw. */
function failedRun(
  err: unknown,
  io: MainIO,
  handle: LoggerHandle,
  ac: AbortController,
  state: RunState,
): number {
  if (state.refused !== undefined) return refusedHost(io, handle, state);
  if (state.fatal) return 1;
  // A part that gave up because the stop signal came while it started is a clean stop.
  if (ac.signal.aborted) return stoppedDuringStartup(handle.logger, 'start-up', err);
  // Bad input found late (by a part) is one plain line; anything else is a log line.
  if (err instanceof ConfigError) {
    handle.flush();
    return fail(io, err);
  }
  handle.logger.error({ err: { message: userMessage(err) } }, 'nodeagent stopped with an error');
  return 1;
}

async function runWithHost(
  eff: EffectiveConfiguration,
  io: MainIO,
  stops: StopSignals,
): Promise<number> {
  const [handle, hostChecks] = await Promise.all([
    startLogging(eff, stops),
    import('./host-checks.js'),
  ]);
  const logger = handle.logger;
  const ac = new AbortController();
  const onStop = (): void => ac.abort(stops.signal.reason);
  stops.signal.addEventListener('abort', onStop, { once: true });
  if (stops.signal.aborted) onStop();
  const state: RunState = { contention: false, fatal: false };
  try {
    if (ac.signal.aborted) return stoppedDuringStartup(logger, 'configuration');
    const noLock = await takeLock(hostChecks, eff, io, handle, ac, state);
    if (noLock !== undefined) return noLock;
    const runAgent = await loadAgent();
    const code = await runAgent({
      config: eff.config,
      flags: eff.flags,
      logger,
      signal: ac.signal,
      checkHost: () => checkHost(hostChecks, eff, logger, ac, state),
      // Start-up has loaded what it needs (built-ins and code caches, under V8's default flags).
      onBuilt: setHeapGrowth,
      // A graceful stop, as on SIGTERM, but the status is 1 so a supervisor restarts the agent.
      onFatal: (err) => {
        state.fatal = true;
        ac.abort(err);
      },
    });
    if (state.refused !== undefined) return refusedHost(io, handle, state);
    return state.contention ? 0 : state.fatal ? 1 : code;
  } catch (err) {
    return failedRun(err, io, handle, ac, state);
  } finally {
    stops.signal.removeEventListener('abort', onStop);
    await state.release?.();
    handle.close();
  }
}

/** --platform-profile as given on the command line; an unknown value is an error naming it. */
function explicitProfile(argv: readonly string[]): PlatformProfile | undefined {
  const given = profileOnCommandLine(argv);
  if (given === undefined || given === '') return undefined;
  if (!isPlatformProfile(given))
    throw new ConfigError(unknownProfileMessage(given, '--platform-profile'), {
      flag: '--platform-profile',
    });
  return given;
}

/**
 * Without --platform-profile, the profile follows from the input (profile-signals.ts): when the
 * reference's flag spellings or a KubeletConfiguration file select the kubernetes profile, it is
 * set as if given and the reason is logged once. Conflicting signals throw.
 */
async function withInputProfile(
  parsed: ParsedFlags,
  explicit: PlatformProfile | undefined,
  argv: readonly string[],
  io: MainIO,
  preRead: PreRead,
): Promise<ParsedFlags> {
  const str = (name: string): string | undefined => {
    const v = parsed.values.get(name);
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const chosen = await selectProfile(
    { explicit, argv, configFile: str('config'), configDir: str('config-dir') },
    preRead,
  );
  const inferred = chosen?.inferred;
  if (inferred === undefined || inferred.profile === DEFAULT_PLATFORM_PROFILE) return parsed;
  const { renderTextLine } = await import('../../common/log/text-format.js');
  io.stderr(
    renderTextLine({
      level: 30,
      time: systemClock.nowMs(),
      component: 'config',
      msg: inferredProfileMessage(inferred),
    }),
  );
  const values = new Map(parsed.values);
  values.set('platform-profile', inferred.profile);
  return { values, order: parsed.order };
}

/** For bin/nodeagent: uncaught exceptions reported through the bundle's source maps. */
export { reportUncaught } from '../../common/log/uncaught-report.js';
/** A stack through the bundle's source maps (what the report prints; tests probe the maps). */
export { mapStack } from '../../common/log/mapped-stack.js';

export async function main(argv: string[], io: MainIO = processIO): Promise<number> {
  // Installed first: a signal while the configuration loads must stop the process cleanly too.
  const stops = installStopSignals();
  try {
    return await mainWith(argv, io, stops);
  } finally {
    stops.dispose();
  }
}

/** The command line read under its naming profile; an exit code when it cannot be. */
function readCommandLine(
  argv: string[],
  io: MainIO,
): { parsed: ParsedFlags; explicit: PlatformProfile | undefined } | number {
  try {
    const explicit = explicitProfile(argv);
    // A reference spelling is read as ours unless the command line also says platform (a conflict).
    decideProfile(commandLineSignals(explicit, argv));
    return { parsed: parseArgs(translateReferenceFlags(argv)), explicit };
  } catch (err) {
    return fail(io, err);
  }
}

/** --help and --version: answered before anything is read; undefined when neither is given. */
async function answerInfoFlags(parsed: ParsedFlags, io: MainIO): Promise<number | undefined> {
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
  return undefined;
}

/** The effective configuration from flags and files; an exit code when it cannot be built. */
async function effectiveConfiguration(
  given: ParsedFlags,
  explicit: PlatformProfile | undefined,
  argv: string[],
  io: MainIO,
): Promise<EffectiveConfiguration | number> {
  // The config file and drop-ins are read once: the profile inference keeps them for the loader.
  const preRead = newPreRead();
  try {
    const parsed = await withInputProfile(given, explicit, argv, io, preRead);
    const { buildConfiguration } = await import('../config/effective.js');
    return await buildConfiguration({ specs: FLAGS, parsed, preRead });
  } catch (err) {
    return fail(io, err);
  }
}

/** Dropped fields are warnings, written before any logger exists, in the log's own format. */
async function writeWarnings(warnings: readonly string[], io: MainIO): Promise<void> {
  if (warnings.length === 0) return;
  const { renderTextLine } = await import('../../common/log/text-format.js');
  for (const w of warnings)
    io.stderr(
      renderTextLine({
        level: 40,
        time: systemClock.nowMs(),
        component: 'config',
        msg: maskUrlUserinfo(w),
      }),
    );
}

async function mainWith(argv: string[], io: MainIO, stops: StopSignals): Promise<number> {
  const line = readCommandLine(argv, io);
  if (typeof line === 'number') return line;
  const answered = await answerInfoFlags(line.parsed, io);
  if (answered !== undefined) return answered;
  await deprecations(line.parsed, io);
  const eff = await effectiveConfiguration(line.parsed, line.explicit, argv, io);
  if (typeof eff === 'number') return eff;
  await writeWarnings(eff.warnings, io);
  eff.problems.push(...criEndpointProblems(eff.config));
  if (eff.problems.length > 0) {
    for (const p of eff.problems) io.stderr(`${maskUrlUserinfo(p)}\n`);
    return 1;
  }
  const version = line.parsed.values.get('version');
  if (typeof version === 'string' && version.startsWith('v')) eff.flags.reportedVersion = version;
  if (line.parsed.values.get('print-config') === true) {
    const { renderPrintConfig } = await import('../config/print.js');
    io.stdout(renderPrintConfig(eff.config, eff.flags));
    return 0;
  }
  return runWithHost(eff, io, stops);
}
