// The one place that builds and wires the agent's parts. `buildAgent` constructs everything
// (nothing starts); `runAgent` starts the parts in order and stops them on the signal.
// Colleagues add their parts in the delimited blocks below (certificates, servers, node).
import { namesFor, type PlatformProfile } from '../common/names.js';
import { hostname } from 'node:os';
import type { PodSettings } from './runtime/settings/from-config.js';
import type { NodeAgentConfiguration } from './config/schema.js';
import type { NodeAgentFlags } from './config/flags-type.js';
import { fileFieldSettings } from './config/file-field-effects.js';
import type { Logger } from '../common/log/types.js';
import { systemClock, type Clock } from '../common/util/clock.js';
import { ConfigError, userMessage } from '../common/util/errors.js';
import { parseDurationMs } from '../common/util/values/duration.js';
import type { PodConfig } from './source/merger.js';
import type { PodSource } from './source/types.js';
import type { ValidatePodOptions } from './pod/validate.js';
import type { RuntimeBundle } from './runtime/factory.js';
import type { PodStatusManager } from './worker/status-manager.js';
import type { ProbeManager } from './worker/probes.js';
import type { PodManager } from './worker/pod-manager.js';
import type { GarbageCollector, GcOptions } from './gc/collector.js';
import type { ApiPod } from './source/apiserver.js';
import type { ApiStatusSync } from './worker/api-status-sync.js';
import type { RestClient } from './client/rest-client.js';
import type { CertificateSetup } from './certificate/setup.js';
import type * as AgentParts from './agent-parts.js';

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
}

export interface Agent {
  nodeName: string;
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
  /** Set when the agent talks to an API server (--platconfig). */
  api?: { rest: RestClient; statusSync: ApiStatusSync };
}

/** How long bootstrap may wait on the API server before the other parts load alongside it. */
const PARTS_AFTER_WAITING_MS = 1000;

function durationMs(value: string, field: string, flag: string): number {
  try {
    return parseDurationMs(value, flag);
  } catch (err) {
    throw new ConfigError(`invalid configuration: ${field} (${flag}) ${userMessage(err)}`, { field, flag });
  }
}

export function nodeNameOf(flags: NodeAgentFlags): string {
  const n = flags.hostnameOverride.trim() !== '' ? flags.hostnameOverride.trim() : hostname();
  return n.toLowerCase();
}

function flagNumber(flags: NodeAgentFlags, key: string, fallback: number): number {
  const v = flags[key];
  return typeof v === 'number' ? v : fallback;
}

/** Builds every part; starts nothing. */
export async function buildAgent(input: AgentInput): Promise<Agent> {
  const { config, flags, logger } = input;
  const clock = input.clock ?? systemClock;
  const nodeName = nodeNameOf(flags);
  const platformDomain = config.platformDomain;
  const names = namesFor(config.platformProfile as PlatformProfile, platformDomain);

  const runtimeRequestTimeoutMs = durationMs(config.runtimeRequestTimeout, 'runtimeRequestTimeout', '--runtime-request-timeout');
  const fileFields = fileFieldSettings(config);

  // ---- certificates (issue 4): TLS bootstrap, the API client, client-certificate rotation ----
  // Started first and awaited only where the API client is needed, so bootstrap (mostly waiting
  // on the API server) runs while the runtime and the other parts are loaded and built; nothing
  // else needs the client certificate. Bootstrap runs when --platconfig is missing or expired
  // (needs --bootstrap-platconfig); the client presents the current certificate and swaps in
  // rotated ones. The serving certificate is left to startAgentServices (servingCertificate:
  // false). The managers stop with input.signal, when runAgent closes this client, or when the
  // build fails. On a fatal certificate error (expired and not renewable while the API server
  // answers) the process is asked to stop, with exit status 1, so a supervisor restarts it into
  // bootstrap.
  const buildFailed = new AbortController();
  let certificates: Promise<CertificateSetup> | undefined;
  // The other parts load once the client certificate is settled (done, not needed, or failed),
  // as the reference bootstraps before it builds anything else; or once bootstrap has waited
  // on the API server (health, approval, signing) for PARTS_AFTER_WAITING_MS, so a slow or manual
  // approval still overlaps with the loading. Loading blocks the event loop for a while: started
  // at once, it would hold up a quick (auto-approved) bootstrap's requests and certificate write.
  let bootstrapWaiting: Promise<unknown> = Promise.resolve();
  if (flags.platconfig !== '') {
    const certSignal = AbortSignal.any([input.signal, buildFailed.signal]);
    // Its modules load before the other parts' so that bootstrap's first requests go out first.
    const { startCertificates } = await import('./certificate/setup.js');
    let waiting = (): void => undefined;
    const onWaiting = new Promise<void>((resolve) => (waiting = resolve));
    certificates = startCertificates({
      onBootstrapWaiting: () => waiting(),
        platconfigPath: flags.platconfig,
        ...(flags.bootstrapPlatconfig !== '' ? { bootstrapPlatconfigPath: flags.bootstrapPlatconfig } : {}),
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
        signal: certSignal,
        onFatal: (err) => {
          logger.error({ err: { message: err.message } }, 'certificate failure; stopping the agent');
          // A graceful stop (as on SIGTERM), but the process must end non-zero so a supervisor
          // restarts it; the exit status is settled last, after main() has set its own.
          process.once('exit', () => {
            process.exitCode = 1;
          });
          process.kill(process.pid, 'SIGTERM');
        },
      });
    // Awaited below; this only keeps a failure while the runtime is built from going unhandled.
    certificates.catch(() => undefined);
    const waitedLong = new AbortController();
    const settled = certificates.catch(() => undefined).finally(() => waitedLong.abort());
    const waitedLongEnough = onWaiting.then(() => clock.sleep(PARTS_AFTER_WAITING_MS, AbortSignal.any([certSignal, waitedLong.signal]))).catch(() => undefined);
    bootstrapWaiting = Promise.race([waitedLongEnough, settled]);
  }
  // ---- end certificates (issue 4) ----

  let runtime: RuntimeBundle | undefined;
  let rest: RestClient | undefined;
  let parts: typeof AgentParts;
  let podSettings: PodSettings;
  try {
    await bootstrapWaiting;
    logger.info({}, 'building the agent parts');
    const [{ createRuntime }, loaded, { buildPodSettings, logHostNotes }, { logInertOptions }, { credentialsFromFlags }] = await Promise.all([
      import('./runtime/factory.js'),
      import('./agent-parts.js'),
      import('./runtime/settings/from-config.js'),
      import('./cli/inert-options.js'),
      import('./runtime/credentials/keyring.js'),
    ]);
    parts = loaded;
    podSettings = buildPodSettings({
      config,
      rootDir: flags.rootDir,
      runtimeType: config.containerRuntimeEndpoint.startsWith('process://') ? 'process' : 'docker',
      logger,
      ...(typeof flags.nodeIP === 'string' && flags.nodeIP !== '' ? { nodeIPs: flags.nodeIP.split(',') } : {}),
    });
    logHostNotes(podSettings.notes, logger.child({ part: 'options' }));
    logInertOptions(config, flags, logger.child({ part: 'options' }));
    const credentials = await credentialsFromFlags({
      configPath: flags.imageCredentialProviderConfig,
      binDir: flags.imageCredentialProviderBinDir,
      runtimeType: config.containerRuntimeEndpoint.startsWith('process://') ? 'process' : 'docker',
      clock,
      logger: logger.child({ part: 'credentials' }),
    });
    runtime = await createRuntime({
      ...(credentials !== undefined ? { credentials } : {}),
      podSettings: podSettings.runtime,
      ...(fileFields.maxParallelImagePulls !== undefined ? { maxParallelImagePulls: fileFields.maxParallelImagePulls } : {}),
      endpoint: config.containerRuntimeEndpoint,
      imageEndpoint: config.imageServiceEndpoint,
      rootDir: flags.rootDir,
      requestTimeoutMs: runtimeRequestTimeoutMs,
      serializeImagePulls: config.serializeImagePulls,
      registryPullQPS: config.registryPullQPS,
      registryBurst: config.registryBurst,
      containerLogMaxSize: config.containerLogMaxSize,
      containerLogMaxFiles: config.containerLogMaxFiles,
      nodeName,
      logger: logger.child({ part: 'runtime' }),
      clock,
    });
    // ---- API server client ----
    rest = (await certificates)?.rest;
  } catch (err) {
    // Whichever failed first: stop the other (a bootstrap in flight, or a runtime already built).
    buildFailed.abort(err);
    await certificates?.catch(() => undefined);
    await runtime?.close().catch(() => undefined);
    throw err;
  }
  const { Backoff, PodConfig, FileSource, HttpSource, PodStatusManager, ApiserverSource, ApiStatusSync, createNodeClient, createPodClient, ProbeManager, PodSyncer, PodManager, podCapacity, validatePod, GarbageCollector } = parts;
  const validation: ValidatePodOptions =
    runtime.runtime.type === 'process' ? { requireImage: false, requireCommand: true } : { requireImage: true, requireCommand: false };

  // ---- pod sources and merger ----
  const sourceNames: string[] = [];
  if (config.staticPodPath !== '') sourceNames.push('file');
  if (config.staticPodURL !== '') sourceNames.push('http');
  if (rest !== undefined) sourceNames.push('api');
  // ---- end API server client ----
  const statuses = new PodStatusManager();
  // parts built later are reached through this late-bound reference
  const late: { pods?: PodManager } = {};
  const podConfig = new PodConfig({
    sources: sourceNames,
    onUpdate: (u) => late.pods?.handleUpdate(u),
    logger: logger.child({ part: 'podconfig' }),
  });
  const sources: PodSource[] = [];
  if (config.staticPodPath !== '') {
    sources.push(
      new FileSource({
        path: config.staticPodPath,
        checkFrequencyMs: durationMs(config.fileCheckFrequency, 'fileCheckFrequency', '--file-check-frequency'),
        nodeName,
        names,
        validation,
        onSnapshot: (s) => podConfig.apply(s),
        logger: logger.child({ part: 'source', source: 'file' }),
        clock,
      }),
    );
  }
  if (config.staticPodURL !== '') {
    sources.push(
      new HttpSource({
        url: config.staticPodURL,
        headers: config.staticPodURLHeader,
        checkFrequencyMs: durationMs(config.httpCheckFrequency, 'httpCheckFrequency', '--http-check-frequency'),
        nodeName,
        names,
        validation,
        onSnapshot: (s) => podConfig.apply(s),
        logger: logger.child({ part: 'source', source: 'http' }),
        clock,
      }),
    );
  }

  let statusSync: ApiStatusSync | undefined;
  if (rest !== undefined) {
    const podClient = createPodClient<ApiPod>({ client: rest, clock, logger });
    sources.push(
      new ApiserverSource({
        pods: podClient,
        nodeName,
        names,
        validation,
        onSnapshot: (s) => podConfig.apply(s),
        logger: logger.child({ part: 'source', source: 'api' }),
        clock,
      }),
    );
    const nodes = createNodeClient({ client: rest, clock, logger });
    // As the reference's mirror client: no mirror pod without the Node's UID (retried with the status).
    const ownerNode = async (): Promise<{ name: string; uid: string }> => {
      const uid = (await nodes.get(nodeName)).metadata?.uid;
      if (uid === undefined || uid === '') throw new Error(`failed to get node info: UID unset for node ${nodeName}`);
      return { name: nodeName, uid };
    };
    const sync = new ApiStatusSync({ pods: podClient, names, logger: logger.child({ part: 'status' }), clock, ownerNode });
    statuses.onChange((pod, status) => void sync.statusChanged(pod, status));
    statuses.onRemove((pod) => void sync.podRemoved(pod));
    statusSync = sync;
  }

  // ---- workers ----
  const workerLog = logger.child({ part: 'pods' });
  const probes = new ProbeManager({ runtime: runtime.runtime, clock, logger: workerLog, onChange: (uid) => late.pods?.resync(uid) });
  const syncer = new PodSyncer({
    runtime: runtime.runtime,
    images: runtime.images,
    probes,
    statuses,
    clock,
    logger: workerLog,
    rootDir: flags.rootDir,
    backoff: new Backoff({ clock, ...fileFields.restartBackoff }),
    hostIP: typeof flags.nodeIP === 'string' && flags.nodeIP !== '' ? flags.nodeIP.split(',')[0] ?? '127.0.0.1' : '127.0.0.1',
  });
  const pods = new PodManager({
    syncer,
    runtime: runtime.runtime,
    statuses,
    clock,
    logger: workerLog,
    syncFrequencyMs: durationMs(config.syncFrequency, 'syncFrequency', '--sync-frequency'),
    capacity: podCapacity({ maxPods: config.maxPods, podsPerCore: config.podsPerCore }),
    seenAllSources: () => podConfig.seenAllSources(),
    validate: (pod) => validatePod(pod, validation),
    admitHandlers: [podSettings.admitSysctls],
  });
  late.pods = pods;

  // ---- garbage collection ----
  const gcOptions: GcOptions = {
    runtime: runtime.runtime,
    images: runtime.images,
    isPodActive: (uid) => pods.status(uid) !== undefined,
    inUseImages: () => new Set(pods.desiredPods().flatMap((p) => [...p.spec.containers, ...(p.spec.initContainers ?? [])].map((c) => c.image ?? ''))),
    maxDeadContainers: flagNumber(flags, 'maximumDeadContainers', -1),
    maxDeadPerContainer: flagNumber(flags, 'maximumDeadContainersPerContainer', 1),
    minContainerAgeMs: typeof flags.minimumContainerTTLDuration === 'string' ? durationMs(flags.minimumContainerTTLDuration, 'minimumContainerTTLDuration', '--minimum-container-ttl-duration') : 0,
    imageHighThresholdPercent: config.imageGCHighThresholdPercent,
    imageLowThresholdPercent: config.imageGCLowThresholdPercent,
    imageMinAgeMs: durationMs(config.imageMinimumGCAge, 'imageMinimumGCAge', '--minimum-image-ttl-duration'),
    imageMaxAgeMs: fileFields.imageMaxAgeMs,
    logRotateIntervalMs: fileFields.logRotateIntervalMs,
    logRotateWorkers: fileFields.logRotateWorkers,
    containerLogMaxSize: config.containerLogMaxSize,
    containerLogMaxFiles: config.containerLogMaxFiles,
    logRoot: flags.rootDir,
    clock,
    logger: logger.child({ part: 'gc' }),
  };
  const gc = new GarbageCollector(gcOptions);

  // ---- certificates (colleague's block) ----
  // ---- end certificates ----

  return { nodeName, config, flags, runtime, pods, statuses, podConfig, sources, gc, probes, ...(rest && statusSync ? { api: { rest, statusSync } } : {}) };
}

/** Resolves when `signal` aborts (at once when it already has). */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
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
  const { runOnce, startAgentServices, packageVersion } = await import('./agent-parts.js');
  const clock = input.clock ?? systemClock;
  const loops = new AbortController();
  const stop = (): void => loops.abort();
  signal.addEventListener('abort', stop, { once: true });
  // A signal that came while the parts were built (e.g. during bootstrap) stops at once.
  if (signal.aborted) stop();
  let services: { stop(): Promise<void> } | undefined;
  const stopping = (stage: string): number => {
    logger.info({ stage }, 'node agent stopping; pods keep running');
    return 0;
  };
  try {
    await agent.runtime.waitReady(loops.signal).catch((err: unknown) => {
      if (!loops.signal.aborted) throw err;
    });
    if (loops.signal.aborted) return stopping('waiting for the container runtime');
    logger.info({ node: agent.nodeName, runtime: agent.runtime.runtime.type, endpoint: agent.config.containerRuntimeEndpoint }, 'node agent starting');
    for (const s of agent.sources) if (!loops.signal.aborted) await s.start(loops.signal);
    if (agent.sources.length === 0) logger.info('no pod sources configured (--pod-manifest-path, --manifest-url, --platconfig)');
    if (loops.signal.aborted) return stopping('starting the pod sources');

    if (agent.config.runOnce) {
      return await runOnce({
        manager: agent.pods,
        podConfig: agent.podConfig,
        clock,
        logger,
        out: input.out ?? ((l) => process.stdout.write(`${l}\n`)),
        signal: loops.signal,
      });
    }
    agent.pods.start(loops.signal);
    agent.gc.start(loops.signal);
    agent.api?.statusSync.start(loops.signal);

    // ---- servers and node status (colleague's block) ----
    // Servers, node registration and status, eviction and events; they stop with loops.signal.
    const started = await startAgentServices({ agent, clock, logger, signal: loops.signal, agentVersion: agent.flags.reportedVersion ?? packageVersion(), ...(agent.api ? { rest: agent.api.rest } : {}) });
    services = started;
    if (loops.signal.aborted) return stopping('starting the servers');
    logger.info({ servers: started.addresses }, 'agent servers started');
    // ---- end servers and node status ----

    await aborted(loops.signal);
    return stopping('running');
  } catch (err) {
    if (!loops.signal.aborted) throw err;
    logger.info({ err: userMessage(err) }, 'a part stopped by the stop signal while it started');
    return stopping('start-up');
  } finally {
    loops.abort();
    signal.removeEventListener('abort', stop);
    await services?.stop();
    await Promise.all(agent.sources.map((s) => s.closed()));
    await agent.pods.stop();
    agent.probes.stopAll();
    await agent.gc.stopped();
    await agent.api?.statusSync.stopped();
    await agent.api?.statusSync.idle();
    await agent.api?.rest.close();
    await agent.runtime.close();
  }
}
