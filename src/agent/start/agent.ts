// The agent's composition root, the stages after the options (cli/main.ts: flags, files, one
// validated configuration): `buildAgent(config)` constructs everything once, in dependency order
// (naming profile, client certificates and API client, host settings, runtime, then the pod
// parts in assemble.ts); `runAgent` starts them in order (runtime, cgroups, sources, loops, then
// the node services of services.ts) and stops them on the signal. Nothing here reaches into the
// process: main does.
import { isPlatformProfile, namesFor, unknownProfileMessage } from '../../common/names.js';
import { hostname } from 'node:os';
import type { PodSettings } from '../runtime/settings/from-config.js';
import type { ResourceManagers } from '../cm/resource-managers.js';
import type { NodeAgentConfiguration } from '../config/schema.js';
import type { NodeAgentFlags } from '../config/flags-type.js';
import type { Logger } from '../../common/log/types.js';
import type { Names } from '../../common/names.js';
import { systemClock, type Clock } from '../../common/util/clock.js';
import { ConfigError, userMessage } from '../../common/util/errors.js';
import { durationMs } from '../config/duration-field.js';
import { fileFieldSettings, type FileFieldSettings } from '../config/file-field-effects.js';
import type { PodConfig } from '../source/merger.js';
import type { PodSource } from '../source/types.js';
import type { RuntimeBundle } from '../runtime/factory.js';
import type { PodStatusManager } from '../worker/status-manager.js';
import type { ProbeManager } from '../worker/probes.js';
import type { PodManager } from '../worker/pod-manager.js';
import type { Pod } from '../pod/types.js';
import type { GarbageCollector } from '../gc/collector.js';
import type { ApiStatusSync } from '../worker/api-status-sync.js';
import type { ServiceLister } from '../env/service-lister.js';
import type { RestClient } from '../client/rest-client.js';
import type { PodVolumeManager } from '../volume/volume-manager.js';
import type { CertificateSetup } from '../certificate/setup.js';
import type * as AgentParts from './parts.js';
import type { NodeCgroups } from '../cgroups/node-cgroups.js';

type AgentServices = Awaited<ReturnType<typeof AgentParts.startAgentServices>>;

export interface AgentInput {
  config: NodeAgentConfiguration;
  flags: NodeAgentFlags;
  logger: Logger;
  signal: AbortSignal;
  clock?: Clock;
  /** Where runonce prints its summary (default process.stdout). */
  out?: (line: string) => void;
  /** Called once the parts are built, before they start (benchmarks and tests observe them). */
  onBuilt?: (agent: Agent) => void;
  /**
   * A failure the agent cannot run on (its client certificate expired and cannot be renewed while
   * the API server answers): the caller stops the agent and exits non-zero, so a supervisor
   * restarts it into bootstrap.
   */
  onFatal?: (err: Error) => void;
  /**
   * The host checks, started once the client certificate is settled (or bootstrap has waited on
   * the API server for a while), as the reference checks the host only after bootstrap: they do
   * not compete with bootstrap for the one thread. The parts load once they passed; a rejection
   * stops the build.
   */
  checkHost?: () => Promise<unknown>;
}

export interface Agent {
  nodeName: string;
  /** The naming profile of the configuration, computed once here. */
  names: Names;
  config: NodeAgentConfiguration;
  flags: NodeAgentFlags;
  runtime: RuntimeBundle;
  /** Pods and their status: the read API for servers and node status. */
  pods: PodManager;
  statuses: PodStatusManager;
  podConfig: PodConfig;
  sources: PodSource[];
  gc: GarbageCollector;
  probes: ProbeManager;
  /** The pod volumes (and the ConfigMap/Secret manager under them). */
  volumes: PodVolumeManager;
  /** Set when the agent talks to an API server (--platconfig). */
  api?: { rest: RestClient; statusSync: ApiStatusSync; services: ServiceLister };
  /** The CPU, memory and topology managers (src/agent/cm). */
  managers?: ResourceManagers;
  /**
   * The cgroup hierarchy (--cgroups-per-qos, node allocatable); absent when off or the host cannot.
   */
  cgroups?: NodeCgroups;
}

/** How long bootstrap may wait on the API server before the other parts load alongside it. */
const PARTS_AFTER_WAITING_MS = 1000;

export function nodeNameOf(flags: NodeAgentFlags): string {
  const n = flags.hostnameOverride.trim() !== '' ? flags.hostnameOverride.trim() : hostname();
  return n.toLowerCase();
}

interface ClientCertificates {
  /** The certificate setup, when --platconfig is set. */
  readonly setup: Promise<CertificateSetup> | undefined;
  /** Settles when the other parts may load (see startClientCertificates). */
  readonly partsMayLoad: Promise<unknown>;
}

/**
 * TLS bootstrap, the API client and client-certificate rotation, started first and awaited only
 * where the API client is needed. Bootstrap runs when --platconfig is missing or expired (needs
 * --bootstrap-platconfig); the client presents the current certificate and swaps in rotated ones.
 * The serving certificate is left to startAgentServices. The other parts load once the client
 * certificate is settled (done, not needed, or failed), as the reference bootstraps before it
 * builds anything else; or once bootstrap has waited on the API server (health, approval,
 * signing) for PARTS_AFTER_WAITING_MS, so a slow or manual approval overlaps with the loading.
 * Loading blocks the event loop for a while: started at once, it would hold up a quick
 * (auto-approved) bootstrap's requests and certificate write.
 */
async function startClientCertificates(
  input: AgentInput,
  nodeName: string,
  names: Names,
  signal: AbortSignal,
): Promise<ClientCertificates> {
  const { config, flags, logger } = input;
  const clock = input.clock ?? systemClock;
  if (flags.platconfig === '') return { setup: undefined, partsMayLoad: Promise.resolve() };
  // Its modules load before the other parts' so that bootstrap's first requests go out first.
  const { startCertificates } = await import('../certificate/setup.js');
  let waiting = (): void => undefined;
  const onWaiting = new Promise<void>((resolve) => (waiting = resolve));
  const setup = startCertificates({
    onBootstrapWaiting: () => waiting(),
    platconfigPath: flags.platconfig,
    ...(flags.bootstrapPlatconfig !== ''
      ? { bootstrapPlatconfigPath: flags.bootstrapPlatconfig }
      : {}),
    certDir: flags.certDir,
    nodeName,
    nodeIPs: [],
    names,
    rotateCertificates: config.rotateCertificates,
    rotateServerCertificates: false,
    servingCertificate: false,
    qps: config.platAPIQPS,
    burst: config.platAPIBurst,
    contentType: config.platAPIContentType,
    clock,
    logger: logger.child({ part: 'certificates' }),
    signal,
    onFatal: (err) => {
      logger.error({ err: { message: err.message } }, 'certificate failure; stopping the agent');
      input.onFatal?.(err);
    },
  });
  // Awaited by the caller; this only keeps a failure while the runtime is built from going
  // unhandled.
  setup.catch(() => undefined);
  const waitedLong = new AbortController();
  const settled = setup.catch(() => undefined).finally(() => waitedLong.abort());
  const waitedLongEnough = onWaiting
    .then(() => clock.sleep(PARTS_AFTER_WAITING_MS, AbortSignal.any([signal, waitedLong.signal])))
    .catch(() => undefined);
  return { setup, partsMayLoad: Promise.race([waitedLongEnough, settled]) };
}

interface LoadedParts {
  readonly parts: typeof AgentParts;
  readonly runtime: RuntimeBundle;
  readonly podSettings: PodSettings;
  readonly managers: ResourceManagers;
  readonly cgroups: NodeCgroups | undefined;
}

/** Loads the parts' modules and builds the pod settings and the container runtime. */
/** What the runtime is built with beyond the configuration's plain values. */
interface RuntimeSettings {
  readonly runtimeRequestTimeoutMs: number;
  readonly fileFields: FileFieldSettings;
  /** The naming profile's product word (the pods' top-level cgroup `<product>pods`). */
  readonly product: string;
}

/** The pod settings, the resource managers and the cgroup hierarchy, with their notes logged. */
async function buildHostSettings(
  input: AgentInput,
  settings: RuntimeSettings,
): Promise<Omit<LoadedParts, 'parts' | 'runtime'>> {
  const { config, flags, logger } = input;
  const [
    { buildPodSettings, logHostNotes },
    { logInertFields },
    { setupCgroups },
    { managersFromConfig },
  ] = await Promise.all([
    import('../runtime/settings/from-config.js'),
    import('../cli/inert-options.js'),
    import('../cgroups/setup.js'),
    import('../cm/from-config.js'),
  ]);
  const managers = await managersFromConfig(config, flags.rootDir, logger);
  const podSettings = buildPodSettings({
    config,
    rootDir: flags.rootDir,
    runtimeType: runtimeTypeOf(config),
    logger,
    ...(flags.nodeIP !== '' ? { nodeIPs: flags.nodeIP.split(',') } : {}),
  });
  const container = podSettings.runtime.container;
  const {
    cgroups,
    placement,
    notes: cgroupNotes,
  } = await setupCgroups({
    config,
    runtimeCgroups: flags.runtimeCgroups,
    product: settings.product,
    limits: {
      enforceCpuLimits: container.cpu.cfsQuota,
      cpuPeriodUs: container.cpu.cfsQuotaPeriodUs,
      podPidsLimit: container.podPidsLimit,
    },
    logger: logger.child({ part: 'cgroups' }),
  });
  if (placement !== undefined) podSettings.runtime.cgroups = placement;
  podSettings.runtime.container.cpuset = managers.cpuset;
  logHostNotes(
    [...podSettings.notes, ...managers.notes, ...cgroupNotes],
    logger.child({ part: 'options' }),
  );
  logInertFields(config, logger.child({ part: 'options' }));
  return { podSettings, managers, cgroups };
}

function runtimeTypeOf(config: NodeAgentConfiguration): 'process' | 'docker' {
  return config.containerRuntimeEndpoint.startsWith('process://') ? 'process' : 'docker';
}

/**
 * The container runtime over the pod settings, with the image credential providers of the flags.
 */
async function buildRuntime(
  input: AgentInput,
  nodeName: string,
  settings: RuntimeSettings,
  podSettings: PodSettings,
): Promise<RuntimeBundle> {
  const { config, flags, logger } = input;
  const { fileFields } = settings;
  const clock = input.clock ?? systemClock;
  const [{ createRuntime }, { credentialsFromFlags }] = await Promise.all([
    import('../runtime/factory.js'),
    import('../runtime/credentials/keyring.js'),
  ]);
  const credentials = await credentialsFromFlags({
    configPath: flags.imageCredentialProviderConfig,
    binDir: flags.imageCredentialProviderBinDir,
    runtimeType: runtimeTypeOf(config),
    clock,
    logger: logger.child({ part: 'credentials' }),
  });
  return createRuntime({
    ...(credentials !== undefined ? { credentials } : {}),
    podSettings: podSettings.runtime,
    ...(fileFields.maxParallelImagePulls !== undefined
      ? { maxParallelImagePulls: fileFields.maxParallelImagePulls }
      : {}),
    endpoint: config.containerRuntimeEndpoint,
    imageEndpoint: config.imageServiceEndpoint,
    rootDir: flags.rootDir,
    requestTimeoutMs: settings.runtimeRequestTimeoutMs,
    serializeImagePulls: config.serializeImagePulls,
    registryPullQPS: config.registryPullQPS,
    registryBurst: config.registryBurst,
    containerLogMaxSize: config.containerLogMaxSize,
    containerLogMaxFiles: config.containerLogMaxFiles,
    hairpinMode: config.hairpinMode,
    // standalone only: with an API server the node's spec.podCIDRs rule
    podCIDR: flags.platconfig === '' ? config.podCIDR : '',
    podLogsDir: config.podLogsDir,
    nodeName,
    logger: logger.child({ part: 'runtime' }),
    clock,
  });
}

async function loadRuntime(
  input: AgentInput,
  nodeName: string,
  settings: RuntimeSettings,
  keep: (runtime: RuntimeBundle) => void,
): Promise<LoadedParts> {
  input.logger.info({}, 'building the agent parts');
  const [parts, host] = await Promise.all([
    import('./parts.js'),
    buildHostSettings(input, settings),
  ]);
  const runtime = await buildRuntime(input, nodeName, settings, host.podSettings);
  keep(runtime);
  return { parts, runtime, ...host };
}

/** The naming profile's names (the validator refused any other profile already). */
function agentNames(config: NodeAgentConfiguration): Names {
  const profile = config.platformProfile;
  if (!isPlatformProfile(profile))
    throw new ConfigError(unknownProfileMessage(profile, 'platformProfile'), {
      field: 'platformProfile',
    });
  return namesFor(profile, config.platformDomain);
}

/** Parsed before bootstrap starts, so a bad value fails at once. */
function runtimeSettings(config: NodeAgentConfiguration, names: Names): RuntimeSettings {
  return {
    runtimeRequestTimeoutMs: durationMs(
      config.runtimeRequestTimeout,
      'runtimeRequestTimeout',
      '--runtime-request-timeout',
    ),
    fileFields: fileFieldSettings(config),
    product: names.product,
  };
}

/**
 * Client certificates (bootstrap) and the runtime, side by side: whichever fails first stops the
 * other. The API client comes with the certificates, when --platconfig is set.
 */
async function loadWithCertificates(
  input: AgentInput,
  nodeName: string,
  names: Names,
  settings: RuntimeSettings,
): Promise<{ loaded: LoadedParts; rest: RestClient | undefined }> {
  const buildFailed = new AbortController();
  const certificates = await startClientCertificates(
    input,
    nodeName,
    names,
    AbortSignal.any([input.signal, buildFailed.signal]),
  );
  let runtime: RuntimeBundle | undefined;
  try {
    await certificates.partsMayLoad;
    await input.checkHost?.();
    const loaded = await loadRuntime(input, nodeName, settings, (r) => (runtime = r));
    return { loaded, rest: (await certificates.setup)?.rest };
  } catch (err) {
    buildFailed.abort(err);
    await certificates.setup?.catch(() => undefined);
    await runtime?.close().catch(() => undefined);
    throw err;
  }
}

/** Builds every part; starts nothing. */
export async function buildAgent(input: AgentInput): Promise<Agent> {
  const { config, flags, logger } = input;
  const nodeName = nodeNameOf(flags);
  const names = agentNames(config);
  const settings = runtimeSettings(config, names);
  const { loaded, rest } = await loadWithCertificates(input, nodeName, names, settings);
  const built = loaded.parts.assembleAgent({
    config,
    flags,
    nodeName,
    names,
    runtime: loaded.runtime,
    rest,
    fileFields: settings.fileFields,
    admitHandlers: [
      loaded.podSettings.admitSysctls,
      loaded.podSettings.admitAppArmor,
      loaded.managers.admit,
    ],
    ...(loaded.cgroups?.pods !== undefined ? { podCgroups: loaded.cgroups.pods } : {}),
    clock: input.clock ?? systemClock,
    logger,
  });
  const { statusSync, services, ...parts } = built;
  return {
    nodeName,
    names,
    config,
    flags,
    runtime: loaded.runtime,
    managers: loaded.managers,
    ...parts,
    ...(rest && statusSync && services ? { api: { rest, statusSync, services } } : {}),
    ...(loaded.cgroups !== undefined ? { cgroups: loaded.cgroups } : {}),
  };
}

/** Pods admitted and not finished: what the resource managers keep CPUs and memory for. */
function activePods(agent: Agent): Pod[] {
  return agent.pods.desiredPods().filter((p) => {
    const phase = agent.pods.status(p.metadata.uid)?.phase;
    return phase !== 'Failed' && phase !== 'Succeeded';
  });
}

/**
 * The container manager's start, after the runtime answers: Docker's cgroup driver must be the
 * agent's (the reference refused to start otherwise), then the hierarchy and node allocatable.
 */
async function startCgroups(agent: Agent, logger: Logger): Promise<void> {
  const { checkDockerCgroupDriver } = await import('../cgroups/docker-driver.js');
  await checkDockerCgroupDriver(
    agent.runtime.runtime,
    agent.config.cgroupDriver,
    agent.names.agentWord,
    logger,
  );
  await agent.cgroups?.start();
}

/** Resolves when `signal` aborts (at once when it already has). */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * What runAgent's stages share; `signal` is the agent's own, aborted on the stop signal or at the
 * end.
 */
interface RunContext {
  readonly agent: Agent;
  readonly input: AgentInput;
  readonly parts: typeof AgentParts;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

/**
 * Waits for the runtime, then starts the cgroups and the pod sources. Returns the stage when the
 * stop signal came first, undefined when all started.
 */
async function startSources(ctx: RunContext, runtimeDown: () => void): Promise<string | undefined> {
  const { agent, logger, signal } = ctx;
  await agent.runtime.waitReady(signal, runtimeDown).catch((err: unknown) => {
    if (!signal.aborted) throw err;
  });
  if (signal.aborted) return 'waiting for the container runtime';
  await startCgroups(agent, logger);
  logger.info(
    {
      node: agent.nodeName,
      runtime: agent.runtime.runtime.type,
      endpoint: agent.config.containerRuntimeEndpoint,
    },
    'node agent starting',
  );
  for (const s of agent.sources) {
    // The stop signal may come while a source starts.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    if (signal.aborted) break;
    await s.start(signal);
  }
  if (agent.sources.length === 0)
    logger.info('no pod sources configured (--pod-manifest-path, --manifest-url, --platconfig)');
  // The stop signal may come while the sources start.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
  return signal.aborted ? 'starting the pod sources' : undefined;
}

/**
 * The loops that run until the signal: pod manager, resource managers' reconcile, GC, API status
 * sync.
 */
function startLoops(ctx: RunContext): void {
  const { agent, clock, signal } = ctx;
  agent.pods.start(signal);
  void agent.managers?.startReconcile({
    activePods: () => activePods(agent),
    sourcesReady: () => agent.podConfig.seenAllSources(),
    runtime: agent.runtime.runtime,
    periodMs: durationMs(
      agent.config.cpuManagerReconcilePeriod,
      'cpuManagerReconcilePeriod',
      '--cpu-manager-reconcile-period',
    ),
    clock,
    signal,
  });
  agent.gc.start(signal);
  agent.api?.statusSync.start(signal);
  agent.api?.services.start(signal);
}

/** Servers, node registration and status, eviction and events; they stop with the signal. */
async function startServices(ctx: RunContext): Promise<AgentServices> {
  const { agent, clock, logger, signal } = ctx;
  const agentVersion = agent.flags.reportedVersion ?? ctx.parts.packageVersion();
  return ctx.parts.startAgentServices({
    agent,
    clock,
    logger,
    signal,
    agentVersion,
    ...(agent.api ? { rest: agent.api.rest } : {}),
  });
}

/** Stops what runAgent started, in order; pods keep running. */
async function stopAgent(agent: Agent, services: AgentServices | undefined): Promise<void> {
  await services?.stop();
  await Promise.all(agent.sources.map((s) => s.closed()));
  await agent.pods.stop();
  agent.volumes.stop();
  agent.probes.stopAll();
  await agent.gc.stopped();
  await agent.api?.statusSync.stopped();
  await agent.api?.statusSync.idle();
  await agent.api?.rest.close();
  await agent.runtime.close();
}

/** The stop signal came at `stage`: one line, status 0. */
function stopping(logger: Logger, stage: string): number {
  logger.info({ stage }, 'node agent stopping; pods keep running');
  return 0;
}

/** Runs the started parts until the signal; the exit status (runonce's, or 0 on a stop). */
async function runStarted(
  ctx: RunContext,
  started: (services: AgentServices) => void,
): Promise<number> {
  const { agent, input, logger, signal } = ctx;
  // A runtime not answering at start with an API server: the services (node registration and
  // status, the servers) start while the agent waits, so that the node is registered NotReady
  // ("container runtime is down") and turns Ready when the runtime answers, without a restart.
  // Standalone, nothing is started before the runtime answers.
  let early: Promise<AgentServices> | undefined;
  const startEarly = (): void => {
    if (agent.config.runOnce || agent.api === undefined) return;
    if (early !== undefined) return;
    early = startServices(ctx).then((s) => {
      started(s);
      return s;
    });
    // a failure is rethrown where it is awaited, not left unhandled meanwhile
    void early.catch(() => undefined);
  };
  // Services started early are stopped with the rest once they are up (`started` has them): a
  // stop during start-up waits for them, so none goes on writing (the serving certificate, say)
  // after the agent has stopped.
  const earlyUp = async (): Promise<void> => {
    await early?.catch(() => undefined);
  };
  const stoppedAt = await startSources(ctx, startEarly).catch(async (err: unknown) => {
    await earlyUp();
    throw err;
  });
  if (stoppedAt !== undefined) {
    await earlyUp();
    return stopping(logger, stoppedAt);
  }
  if (agent.config.runOnce) {
    const out = input.out ?? ((l: string) => process.stdout.write(`${l}\n`));
    return await ctx.parts.runOnce({
      manager: agent.pods,
      podConfig: agent.podConfig,
      clock: ctx.clock,
      logger,
      out,
      signal,
    });
  }
  startLoops(ctx);
  const services = await (early ?? startServices(ctx));
  started(services);
  if (signal.aborted) return stopping(logger, 'starting the servers');
  logger.info({ servers: services.addresses }, 'agent servers started');
  await aborted(signal);
  return stopping(logger, 'running');
}

/**
 * Starts the agent's parts and runs until `signal` aborts; returns the exit status. The signal
 * may come at any stage, even before or while the parts start: each stage checks it, a stage
 * that fails because of it counts as a clean stop, and whatever started is stopped.
 */
export async function runAgent(input: AgentInput): Promise<number> {
  const { logger, signal } = input;
  const agent = await buildAgent(input);
  input.onBuilt?.(agent);
  const parts = await import('./parts.js');
  const loops = new AbortController();
  const stop = (): void => loops.abort();
  signal.addEventListener('abort', stop, { once: true });
  // A signal that came while the parts were built (e.g. during bootstrap) stops at once.
  if (signal.aborted) stop();
  let services: AgentServices | undefined;
  const ctx: RunContext = {
    agent,
    input,
    parts,
    clock: input.clock ?? systemClock,
    logger,
    signal: loops.signal,
  };
  try {
    return await runStarted(ctx, (s) => (services = s));
  } catch (err) {
    if (!loops.signal.aborted) throw err;
    logger.info({ err: userMessage(err) }, 'a part stopped by the stop signal while it started');
    return stopping(logger, 'start-up');
  } finally {
    loops.abort();
    signal.removeEventListener('abort', stop);
    await stopAgent(agent, services);
  }
}
