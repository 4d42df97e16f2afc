// Built-in defaults of the effective configuration. Two modes, as the reference has them: without
// --config the legacy flag defaults of the spec's option table apply (anonymous auth on, token
// webhook off, AlwaysAllow, read-only port 10255); with --config the file defaults apply
// (anonymous off, webhook on, Webhook authorization, read-only port 0).
import { DEFAULT_PLATFORM_DOMAIN, namesFor } from '../../common/names.js';
import type { NodeAgentConfiguration } from './schema.js';

export { DEFAULT_PLATFORM_DOMAIN };

export type DefaultsMode = 'flags' | 'file';

export function configApiVersion(platformDomain: string): string {
  return namesFor('platform', platformDomain).agentConfig.apiVersion;
}

export const CONFIG_KIND = namesFor('platform').agentConfig.kind;

/**
 * Fields of the configuration, typed as the configuration types them (enum fields keep their
 * literal types).
 */
function fields<K extends keyof NodeAgentConfiguration>(
  values: Pick<NodeAgentConfiguration, K>,
): Pick<NodeAgentConfiguration, K> {
  return values;
}

/** The servers, their TLS, authentication and authorization (the two modes differ here). */
function serverDefaults(fileMode: boolean) {
  return fields({
    enableServer: true,
    address: '0.0.0.0',
    port: 10250,
    readOnlyPort: fileMode ? 0 : 10255,
    healthzBindAddress: '127.0.0.1',
    healthzPort: 10248,
    tlsCertFile: '',
    tlsPrivateKeyFile: '',
    tlsCipherSuites: [],
    tlsMinVersion: '',
    rotateCertificates: false,
    serverTLSBootstrap: false,
    authentication: {
      x509: { clientCAFile: '' },
      webhook: { enabled: fileMode, cacheTTL: '2m0s' },
      anonymous: { enabled: !fileMode },
    },
    authorization: {
      mode: fileMode ? 'Webhook' : 'AlwaysAllow',
      webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' },
    },
    enableDebuggingHandlers: true,
    enableContentionProfiling: false,
    enableProfilingHandler: true,
    enableDebugFlagsHandler: true,
    enableSystemLogHandler: true,
    enableSystemLogQuery: false,
    tracing: null,
    showHiddenMetricsForVersion: '',
    streamingConnectionIdleTimeout: '4h0m0s',
  });
}

/** Pod sources. */
const SOURCE_DEFAULTS = fields({
  staticPodPath: '',
  fileCheckFrequency: '20s',
  staticPodURL: '',
  staticPodURLHeader: {},
  httpCheckFrequency: '20s',
  syncFrequency: '1m0s',
  runOnce: false,
});

/** The API client, node registration and status. */
const API_DEFAULTS = fields({
  platAPIQPS: 50,
  platAPIBurst: 100,
  platAPIContentType: `application/vnd.platform.protobuf`,
  eventRecordQPS: 50,
  eventBurst: 100,
  registerNode: true,
  providerID: '',
  registerWithTaints: [],
  nodeStatusUpdateFrequency: '10s',
  nodeStatusReportFrequency: '5m0s',
  nodeLeaseDurationSeconds: 40,
  nodeStatusMaxImages: 50,
});

/** The container runtime, images and container logs. */
const RUNTIME_DEFAULTS = fields({
  containerRuntimeEndpoint: 'unix:///var/run/docker.sock',
  imageServiceEndpoint: '',
  runtimeRequestTimeout: '2m0s',
  serializeImagePulls: true,
  registryPullQPS: 5,
  registryBurst: 10,
  imageMinimumGCAge: '2m0s',
  imageMaximumGCAge: '0s',
  maxParallelImagePulls: null,
  imageGCHighThresholdPercent: 85,
  imageGCLowThresholdPercent: 80,
  containerLogMaxSize: '10Mi',
  containerLogMaxFiles: 5,
  containerLogMaxWorkers: 1,
  containerLogMonitorInterval: '10s',
  podLogsDir: '/var/log/pods',
  // the reference sets 300s only under the PlatletCrashLoopBackOffMax gate (effective.ts)
  crashLoopBackOff: { maxContainerRestartPeriod: null },
  seccompDefault: false,
});

/** Pods, networking, volumes and node shutdown. */
const POD_DEFAULTS = fields({
  maxPods: 110,
  podsPerCore: 0,
  podPidsLimit: -1,
  podCIDR: '',
  maxOpenFiles: 1_000_000,
  clusterDomain: '',
  clusterDNS: [],
  resolvConf: '/etc/resolv.conf',
  hairpinMode: 'promiscuous-bridge',
  allowedUnsafeSysctls: [],
  makeIPTablesUtilChains: true,
  protectKernelDefaults: false,
  oomScoreAdj: -999,
  volumePluginDir: '/usr/libexec/plat/nodeagent-plugins/volume/exec/',
  volumeStatsAggPeriod: '1m0s',
  enableControllerAttachDetach: true,
  localStorageCapacityIsolation: true,
  kernelMemcgNotification: false,
  configMapAndSecretChangeDetectionStrategy: 'Watch',
  iptablesMasqueradeBit: 14,
  iptablesDropBit: 15,
  shutdownGracePeriod: '0s',
  shutdownGracePeriodCriticalPods: '0s',
  shutdownGracePeriodByPodPriority: [],
});

/** Cgroups and the CPU, memory and topology managers. */
const CGROUP_DEFAULTS = fields({
  cgroupDriver: 'cgroupfs',
  cgroupRoot: '',
  cgroupsPerQOS: true,
  nodeagentCgroups: '',
  systemCgroups: '',
  cpuCFSQuota: true,
  cpuCFSQuotaPeriod: '100ms',
  cpuManagerPolicy: 'none',
  cpuManagerPolicyOptions: {},
  cpuManagerReconcilePeriod: '10s',
  memoryManagerPolicy: 'None',
  topologyManagerPolicy: 'none',
  topologyManagerPolicyOptions: {},
  topologyManagerScope: 'container',
  qosReserved: {},
  systemReserved: {},
  systemReservedCgroup: '',
  platReserved: {},
  platReservedCgroup: '',
  reservedSystemCPUs: '',
  reservedMemory: [],
  enforceNodeAllocatable: ['pods'],
  memorySwap: { swapBehavior: '' },
  memoryThrottlingFactor: 0.9,
  singleProcessOOMKill: null,
});

/** Eviction. */
const EVICTION_DEFAULTS = fields({
  // The reference's Linux defaults for hard eviction (a file or flag setting the map replaces it).
  evictionHard: {
    'memory.available': '100Mi',
    'nodefs.available': '10%',
    'nodefs.inodesFree': '5%',
    'imagefs.available': '15%',
  },
  evictionSoft: {},
  evictionSoftGracePeriod: {},
  evictionMinimumReclaim: {},
  evictionPressureTransitionPeriod: '5m0s',
  evictionMaxPodGracePeriod: 0,
});

/** Host checks, feature gates and logging. */
const HOST_DEFAULTS = fields({
  failSwapOn: true,
  failCgroupV1: true,

  featureGates: {},
  logging: {
    format: 'text',
    flushFrequency: '5s',
    verbosity: 0,
    vmodule: [],
    options: { text: { splitStream: false, infoBufferSize: '0' } },
  },
});

/** A fresh defaults object (callers may mutate it). */
export function defaultConfiguration(
  mode: DefaultsMode,
  platformDomain = DEFAULT_PLATFORM_DOMAIN,
): NodeAgentConfiguration {
  const c = structuredClone({
    apiVersion: configApiVersion(platformDomain),
    kind: CONFIG_KIND,
    platformDomain,
    platformProfile: 'platform',
    ...serverDefaults(mode === 'file'),
    ...SOURCE_DEFAULTS,
    ...API_DEFAULTS,
    ...RUNTIME_DEFAULTS,
    ...POD_DEFAULTS,
    ...CGROUP_DEFAULTS,
    ...EVICTION_DEFAULTS,
    ...HOST_DEFAULTS,
  });
  // A config file without evictionHard gets the reference's eviction.DefaultEvictionHard (Linux),
  // which also holds imagefs.inodesFree.
  if (mode === 'file') c.evictionHard['imagefs.inodesFree'] = '5%';
  return c;
}
