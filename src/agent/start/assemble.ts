// The agent's pod parts, built from the loaded runtime and the API client: pod sources and their
// merger, status sync to the API server, the pod workers and the garbage collector. Each
// builder makes one part; `assembleAgent` puts them together. Loaded with the other parts
// (parts.ts), after the client certificate is settled; buildAgent (agent.ts) calls it. A new
// pod-level part (one that needs the API client, the runtime or the status manager) is built here.
import { cpus, totalmem } from 'node:os';
import { FlexVolumePlugins } from '../volume/flexvolume.js';
import { systemMounter } from '../volume/mounts.js';
import { TokenManager } from '../volume/token-manager.js';
import { trustAnchors } from '../volume/trust-bundles.js';
import { PodVolumeManager } from '../volume/volume-manager.js';
import { podObjectManager } from '../objects/factory.js';
import { ContainerEnvResolver } from '../env/resolver.js';
import { ServiceLister } from '../env/service-lister.js';
import { isStaticPod } from '../pod/static.js';
import type { NodeAgentConfiguration } from '../config/schema.js';
import type { NodeAgentFlags } from '../config/flags-type.js';
import type { Names } from '../../common/names.js';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { durationMs } from '../config/duration-field.js';
import type { FileFieldSettings } from '../config/file-field-effects.js';
import type { RestClient } from '../client/rest-client.js';
import { createNodeClient, createPodClient } from '../client/typed-clients.js';
import { ApiObjectSchema } from '../client/api-schemas.js';
import { GarbageCollector } from '../gc/collector.js';
import { validatePod, type ValidatePodOptions } from '../pod/validate.js';
import { PodRefusals } from '../pod/refusal-notes.js';
import { RuntimeError } from '../../common/util/errors.js';
import { podPullCredentials } from '../worker/pull-credentials.js';
import { pullSecretTypes } from '../runtime/credentials/pull-secrets.js';
import type { PodObjects } from '../objects/types.js';
import {
  apiRuntimeHandlers,
  standaloneRuntimeHandlers,
  type RuntimeHandlerLookup,
} from '../objects/runtime-classes.js';
import { refusedFields } from '../pod/refusals.js';
import type { RuntimeBundle } from '../runtime/factory.js';
import { podCapacity, type AdmitResult } from '../worker/admission.js';
import type { Pod } from '../pod/types.js';
import { ApiserverSource } from '../source/apiserver.js';
import { FileSource } from '../source/file.js';
import { HttpSource } from '../source/http.js';
import { PodConfig } from '../source/merger.js';
import type { PodSnapshot, PodSource } from '../source/types.js';
import { ApiStatusSync } from '../worker/api-status-sync.js';
import { Backoff } from '../worker/backoff.js';
import { PodManager } from '../worker/pod-manager.js';
import { PodLogLinks } from '../runtime/pod-logs/links.js';
import { gateLookup } from '../config/validate.js';
import { PodSyncer } from '../worker/pod-sync.js';
import { ProbeManager } from '../worker/probes.js';
import { PodStatusManager } from '../worker/status-manager.js';
import type { PodCgroups } from '../cgroups/pod-cgroups.js';

export interface AssembleInput {
  readonly config: NodeAgentConfiguration;
  readonly flags: NodeAgentFlags;
  readonly nodeName: string;
  readonly names: Names;
  readonly runtime: RuntimeBundle;
  /** The API client, when the agent talks to an API server (--platconfig). */
  readonly rest: RestClient | undefined;
  /**
   * What the configuration-file fields without a flag set (restart back-off cap, image age, log
   * rotation).
   */
  readonly fileFields: FileFieldSettings;
  /** Pod admission handlers from the pod settings (sysctls). */
  readonly admitHandlers: readonly ((pod: Pod) => AdmitResult)[];
  /** --cgroups-per-qos: the pod cgroups (absent when off or the host cannot). */
  readonly podCgroups?: PodCgroups;
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface AssembledParts {
  readonly pods: PodManager;
  readonly statuses: PodStatusManager;
  readonly podConfig: PodConfig;
  readonly sources: PodSource[];
  readonly gc: GarbageCollector;
  readonly probes: ProbeManager;
  readonly statusSync: ApiStatusSync | undefined;
  readonly volumes: PodVolumeManager;
  /** The Services for the containers' service variables (with an API server). */
  readonly services: ServiceLister | undefined;
}

/** The first --node-ip, the address pods see as their host's. */
function hostIP(flags: NodeAgentFlags): string {
  return flags.nodeIP !== '' ? (flags.nodeIP.split(',')[0] ?? '127.0.0.1') : '127.0.0.1';
}

interface SourceContext {
  readonly input: AssembleInput;
  readonly validation: ValidatePodOptions;
  readonly refusals: PodRefusals;
  readonly apply: (s: PodSnapshot) => void;
}

/** --pod-manifest-path and --manifest-url: the static pod sources. */
function staticSources(ctx: SourceContext): PodSource[] {
  const { config, nodeName, names, clock, logger } = ctx.input;
  const common = { nodeName, names, validation: ctx.validation, onSnapshot: ctx.apply, clock };
  const sources: PodSource[] = [];
  if (config.staticPodPath !== '') {
    sources.push(
      new FileSource({
        ...common,
        path: config.staticPodPath,
        checkFrequencyMs: durationMs(
          config.fileCheckFrequency,
          'fileCheckFrequency',
          '--file-check-frequency',
        ),
        logger: logger.child({ part: 'source', source: 'file' }),
      }),
    );
  }
  if (config.staticPodURL !== '') {
    sources.push(
      new HttpSource({
        ...common,
        url: config.staticPodURL,
        headers: config.staticPodURLHeader,
        checkFrequencyMs: durationMs(
          config.httpCheckFrequency,
          'httpCheckFrequency',
          '--http-check-frequency',
        ),
        logger: logger.child({ part: 'source', source: 'http' }),
      }),
    );
  }
  return sources;
}

/** Pods bound to this node from the API server, and their status written back to it. */
function apiParts(
  ctx: SourceContext,
  rest: RestClient,
  statuses: PodStatusManager,
): { source: PodSource; sync: ApiStatusSync } {
  const { nodeName, names, clock, logger } = ctx.input;
  const podClient = createPodClient({ client: rest, schema: ApiObjectSchema, clock, logger });
  const source = new ApiserverSource({
    pods: podClient,
    nodeName,
    names,
    validation: ctx.validation,
    refusals: ctx.refusals,
    onSnapshot: ctx.apply,
    logger: logger.child({ part: 'source', source: 'api' }),
    clock,
  });
  const nodes = createNodeClient({ client: rest, clock, logger });
  // As the reference's mirror client: no mirror pod without the Node's UID (retried with the
  // status).
  const ownerNode = async (signal?: AbortSignal): Promise<{ name: string; uid: string }> => {
    const uid = (await nodes.get(nodeName, signal ? { signal } : {})).metadata?.uid;
    if (uid === undefined || uid === '')
      throw new Error(`failed to get node info: UID unset for node ${nodeName}`);
    return { name: nodeName, uid };
  };
  const sync = new ApiStatusSync({
    pods: podClient,
    names,
    logger: logger.child({ part: 'status' }),
    clock,
    ownerNode,
  });
  statuses.onChange((pod, status) => void sync.statusChanged(pod, status));
  statuses.onRemove((pod) => void sync.podRemoved(pod));
  return { source, sync };
}

interface WorkerInput {
  readonly input: AssembleInput;
  readonly statuses: PodStatusManager;
  readonly podConfig: PodConfig;
  readonly validation: ValidatePodOptions;
  /** Why the source could not decode a pod it still hands on (so that it is reported Failed). */
  readonly refusals: PodRefusals;
  /** Reaches the pod manager once it exists (the probes report to it). */
  readonly resync: (uid: string) => void;
  readonly services: ServiceLister | undefined;
}

/**
 * The pod volumes: FlexVolume plugins, and the agent's own over the ConfigMap/Secret manager and
 * the token manager.
 */
function volumeManager(input: AssembleInput): PodVolumeManager {
  const { config, flags, rest, names, clock } = input;
  const logger = input.logger.child({ part: 'volumes' });
  return new PodVolumeManager({
    rootDir: flags.rootDir,
    mounter: systemMounter(
      flags.experimentalMounterPath === '' ? 'mount' : flags.experimentalMounterPath,
    ),
    clock,
    logger,
    flex: new FlexVolumePlugins({
      pluginDir: config.volumePluginDir,
      rootDir: flags.rootDir,
      logger,
    }),
    ...(rest !== undefined
      ? {
          objects: podObjectManager({
            strategy: config.configMapAndSecretChangeDetectionStrategy,
            rest,
            clock,
            logger,
          }),
          tokens: new TokenManager({
            rest,
            clock,
            authenticationGroup: names.groups.authentication,
          }),
        }
      : {}),
    allocatable: { cpu: cpus().length, memory: totalmem() },
    trustAnchors: (src) => trustAnchors(rest, names.groups.certificates, src),
  });
}

/** Standalone: no Secret can be read (an image pull secret is then the reference's warning). */
const NO_API_OBJECTS: Pick<PodObjects, 'get'> = {
  get: (kind, _ns, name) =>
    Promise.reject(
      new RuntimeError(`${kind} ${name} cannot be read: this agent has no API server`),
    ),
};

/**
 * runtimeClassName to its handler: the RuntimeClass read as the node, or (standalone) the default.
 */
function runtimeHandlerLookup(input: AssembleInput, logger: Logger): RuntimeHandlerLookup {
  const { rest, clock, names } = input;
  return rest === undefined
    ? standaloneRuntimeHandlers(logger)
    : apiRuntimeHandlers({ rest, group: names.groups.node, clock, logger });
}

/** The pod syncer: one pod's sandbox, volumes, images, environment and containers. */
function podSyncer(
  w: WorkerInput,
  parts: { probes: ProbeManager; volumes: PodVolumeManager; podLogs: PodLogLinks },
  logger: Logger,
): PodSyncer {
  const { flags, runtime, clock } = w.input;
  const { volumes } = parts;
  const cgroups = w.input.podCgroups;
  const env = new ContainerEnvResolver({
    objects: volumes.objects,
    services: w.services,
    hostIPs: [hostIP(flags)],
    allocatable: () => volumes.nodeAllocatable(),
    isStatic: (pod) => isStaticPod(pod, w.input.names),
  });
  return new PodSyncer({
    runtime: runtime.runtime,
    images: runtime.images,
    probes: parts.probes,
    statuses: w.statuses,
    clock,
    logger,
    rootDir: flags.rootDir,
    backoff: new Backoff({ clock, ...w.input.fileFields.restartBackoff }),
    hostIP: hostIP(flags),
    mountStatuses: gateLookup(w.input.config.featureGates)('RecursiveReadOnlyMounts'),
    ...(cgroups !== undefined ? { podCgroups: cgroups } : {}),
    volumes,
    podLogs: parts.podLogs,
    environment: (pod, c, podIP) => env.resolve(pod, c, podIP),
    runtimeHandler: runtimeHandlerLookup(w.input, logger),
    pullCredentials: podPullCredentials({
      objects: volumes.objects ?? NO_API_OBJECTS,
      secretTypes: pullSecretTypes(w.input.names),
      recordEvent: (e) => w.statuses.recordEvent(e),
      logger,
    }),
  });
}

/** The pod manager: admission, one worker per pod, housekeeping of what pods leave behind. */
function podManager(
  w: WorkerInput,
  parts: { syncer: PodSyncer; podLogs: PodLogLinks; volumes: PodVolumeManager },
  logger: Logger,
): PodManager {
  const { config, runtime, clock } = w.input;
  const cgroups = w.input.podCgroups;
  return new PodManager({
    syncer: parts.syncer,
    runtime: runtime.runtime,
    statuses: w.statuses,
    clock,
    logger,
    syncFrequencyMs: durationMs(config.syncFrequency, 'syncFrequency', '--sync-frequency'),
    capacity: podCapacity({ maxPods: config.maxPods, podsPerCore: config.podsPerCore }),
    seenAllSources: () => w.podConfig.seenAllSources(),
    validate: (pod) => {
      const noted = w.refusals.get(pod);
      if (noted !== undefined) return [...noted];
      return [
        ...validatePod(pod, w.validation),
        ...refusedFields(pod, runtime.runtime.type === 'process' ? 'process' : 'docker'),
      ];
    },
    admitHandlers: [...w.input.admitHandlers],
    ...(cgroups !== undefined
      ? { cleanupOrphanCgroups: (keep: (uid: string) => boolean) => cgroups.cleanupOrphans(keep) }
      : {}),
    cleanupOrphanPodLogs: (keep) => parts.podLogs.removeStale(keep),
    cleanupOrphanPodDirs: (keep) => parts.volumes.cleanupOrphans(keep),
  });
}

/** The probes, the pod syncer and the pod manager with its workers. */
function workers(w: WorkerInput): {
  probes: ProbeManager;
  pods: PodManager;
  volumes: PodVolumeManager;
} {
  const { config, runtime, clock } = w.input;
  const logger = w.input.logger.child({ part: 'pods' });
  const probes = new ProbeManager({
    runtime: runtime.runtime,
    clock,
    logger,
    onChange: w.resync,
    recordEvent: (e) => w.statuses.recordEvent(e),
  });
  const volumes = volumeManager(w.input);
  const podLogs = new PodLogLinks({ dir: config.podLogsDir, logger });
  const syncer = podSyncer(w, { probes, volumes, podLogs }, logger);
  const pods = podManager(w, { syncer, podLogs, volumes }, logger);
  return { probes, pods, volumes };
}

/** Dead containers, unused images and rotated logs. */
function garbageCollector(input: AssembleInput, pods: PodManager): GarbageCollector {
  const { config, flags, runtime, clock, logger } = input;
  return new GarbageCollector({
    runtime: runtime.runtime,
    images: runtime.images,
    isPodActive: (uid) => pods.status(uid) !== undefined,
    inUseImages: () =>
      new Set(
        pods
          .desiredPods()
          .flatMap((p) =>
            [...p.spec.containers, ...(p.spec.initContainers ?? [])].map((c) => c.image ?? ''),
          ),
      ),
    maxDeadContainers: flags.maximumDeadContainers,
    maxDeadPerContainer: flags.maximumDeadContainersPerContainer,
    minContainerAgeMs: durationMs(
      flags.minimumContainerTTLDuration,
      'minimumContainerTTLDuration',
      '--minimum-container-ttl-duration',
    ),
    imageHighThresholdPercent: config.imageGCHighThresholdPercent,
    imageLowThresholdPercent: config.imageGCLowThresholdPercent,
    imageMinAgeMs: durationMs(
      config.imageMinimumGCAge,
      'imageMinimumGCAge',
      '--minimum-image-ttl-duration',
    ),
    imageMaxAgeMs: input.fileFields.imageMaxAgeMs,
    logRotateIntervalMs: input.fileFields.logRotateIntervalMs,
    logRotateWorkers: input.fileFields.logRotateWorkers,
    containerLogMaxSize: config.containerLogMaxSize,
    containerLogMaxFiles: config.containerLogMaxFiles,
    logRoot: flags.rootDir,
    podLogsDir: config.podLogsDir,
    clock,
    logger: logger.child({ part: 'gc' }),
  });
}

/** Builds every part on top of the runtime and the API client; starts nothing. */
export function assembleAgent(input: AssembleInput): AssembledParts {
  const validation: ValidatePodOptions =
    input.runtime.runtime.type === 'process'
      ? { requireImage: false, requireCommand: true, processRuntime: true }
      : { requireImage: true, requireCommand: false };
  const sourceNames = [
    ...(input.config.staticPodPath !== '' ? ['file'] : []),
    ...(input.config.staticPodURL !== '' ? ['http'] : []),
    ...(input.rest !== undefined ? ['api'] : []),
  ];
  // The merger and the probes call the pod manager, which is built after them (it reads the
  // merger's seenAllSources and its syncer the probes); they call it only once the sources start.
  const podConfig = new PodConfig({
    sources: sourceNames,
    onUpdate: (u) => {
      pods.handleUpdate(u);
    },
    logger: input.logger.child({ part: 'podconfig' }),
  });
  const statuses = new PodStatusManager(input.logger.child({ part: 'status' }));
  const refusals = new PodRefusals();
  const ctx: SourceContext = { input, validation, refusals, apply: (s) => podConfig.apply(s) };
  const sources = staticSources(ctx);
  const api = input.rest === undefined ? undefined : apiParts(ctx, input.rest, statuses);
  if (api !== undefined) sources.push(api.source);
  const services =
    input.rest === undefined
      ? undefined
      : new ServiceLister({
          rest: input.rest,
          clock: input.clock,
          logger: input.logger.child({ part: 'services' }),
        });
  const { probes, pods, volumes } = workers({
    input,
    statuses,
    podConfig,
    validation,
    refusals,
    resync: (uid) => {
      pods.resync(uid);
    },
    services,
  });
  return {
    pods,
    statuses,
    podConfig,
    sources,
    gc: garbageCollector(input, pods),
    probes,
    statusSync: api?.sync,
    volumes,
    services,
  };
}
