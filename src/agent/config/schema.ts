// The zod schema of the NodeAgentConfiguration file. Every field is optional here: the schema
// checks what a file (or drop-in) may contain, strictly, so unknown keys show up as
// `unrecognized_keys` issues the loader turns into warnings. Defaults live in defaults.ts and the
// rules that span fields (ranges, gates, "must be set if") in validate.ts, so every problem is
// reported at once with its flag name.
import { z } from 'zod';

const str = () => z.string().optional();
const bool = () => z.boolean().optional();
const int = () => z.number().int().optional();
/** The reference's int32 fields: a file may not hold more than a flag could. */
const int32 = () => z.number().int().min(-2147483648).max(2147483647).optional();
/** Go duration string: `300ms`, `1.5h`, `2m0s`. Syntax is checked in validate.ts. */
const duration = () => z.string().optional();
/** Resource quantity (`10Mi`, `1G`, `500m`); YAML may give a plain number. */
const quantityValue = z.union([z.string(), z.number()]);
const quantity = () => quantityValue.optional();
const strings = () => z.array(z.string()).optional();
const stringMap = () => z.record(z.string(), z.string()).optional();
const quantityMap = () => z.record(z.string(), quantityValue).optional();

export const taintSchema = z.strictObject({
  key: z.string(),
  value: z.string().optional(),
  effect: z.string(),
  timeAdded: z.string().optional(),
});

export const reservedMemorySchema = z.strictObject({
  numaNode: z.number().int().min(0).max(2147483647),
  limits: z.record(z.string(), quantityValue),
});

export const vmoduleItemSchema = z.strictObject({
  filePattern: z.string(),
  verbosity: z.number().int(),
});

export const loggingSchema = z.strictObject({
  format: str(),
  flushFrequency: z.union([z.string(), z.number()]).optional(),
  verbosity: int(),
  vmodule: z.array(vmoduleItemSchema).optional(),
  options: z
    .strictObject({
      text: z
        .strictObject({
          splitStream: bool(),
          infoBufferSize: quantity(),
        })
        .optional(),
    })
    .optional(),
});

export const authenticationSchema = z.strictObject({
  x509: z.strictObject({ clientCAFile: str() }).optional(),
  webhook: z.strictObject({ enabled: bool(), cacheTTL: duration() }).optional(),
  anonymous: z.strictObject({ enabled: bool() }).optional(),
});

export const authorizationSchema = z.strictObject({
  mode: str(),
  webhook: z
    .strictObject({ cacheAuthorizedTTL: duration(), cacheUnauthorizedTTL: duration() })
    .optional(),
});

/**
 * One row of shutdownGracePeriodByPodPriority (the reference's ShutdownGracePeriodByPodPriority).
 */
export const shutdownGracePeriodByPodPrioritySchema = z.strictObject({
  priority: z.number().int().min(-2147483648).max(2147483647),
  shutdownGracePeriodSeconds: z.number().int(),
});

/** The reference's TracingConfiguration (component-base tracing/api/v1). */
export const tracingSchema = z.strictObject({
  endpoint: z.string().optional(),
  samplingRatePerMillion: z.number().int().min(-2147483648).max(2147483647).optional(),
});

/** The body of a NodeAgentConfiguration document (apiVersion and kind included). */
export const nodeAgentConfigurationSchema = z.strictObject({
  apiVersion: str(),
  kind: str(),
  platformDomain: str(),
  platformProfile: str(),

  // server
  enableServer: bool(),
  address: str(),
  port: int32(),
  readOnlyPort: int32(),
  healthzBindAddress: str(),
  healthzPort: int32(),
  tlsCertFile: str(),
  tlsPrivateKeyFile: str(),
  tlsCipherSuites: strings(),
  tlsMinVersion: str(),
  rotateCertificates: bool(),
  serverTLSBootstrap: bool(),
  authentication: authenticationSchema.optional(),
  authorization: authorizationSchema.optional(),
  enableDebuggingHandlers: bool(),
  enableContentionProfiling: bool(),
  enableProfilingHandler: bool(),
  enableDebugFlagsHandler: bool(),
  enableSystemLogHandler: bool(),
  enableSystemLogQuery: bool(),
  tracing: tracingSchema.nullable().optional(),
  showHiddenMetricsForVersion: str(),
  streamingConnectionIdleTimeout: duration(),

  // pod sources
  staticPodPath: str(),
  fileCheckFrequency: duration(),
  staticPodURL: str(),
  staticPodURLHeader: z.record(z.string(), z.array(z.string())).optional(),
  httpCheckFrequency: duration(),
  syncFrequency: duration(),
  runOnce: bool(),

  // API server traffic
  platAPIQPS: int32(),
  platAPIBurst: int32(),
  platAPIContentType: str(),
  eventRecordQPS: int32(),
  eventBurst: int32(),
  registerNode: bool(),
  providerID: str(),
  registerWithTaints: z.array(taintSchema).optional(),
  nodeStatusUpdateFrequency: duration(),
  nodeStatusReportFrequency: duration(),
  nodeLeaseDurationSeconds: int32(),
  nodeStatusMaxImages: int32(),

  // runtime and images
  containerRuntimeEndpoint: str(),
  imageServiceEndpoint: str(),
  runtimeRequestTimeout: duration(),
  serializeImagePulls: bool(),
  registryPullQPS: int32(),
  registryBurst: int32(),
  imageMinimumGCAge: duration(),
  imageMaximumGCAge: duration(),
  /** Unset (null): pulls are serialized or unbounded as serializeImagePulls says. */
  maxParallelImagePulls: int32().nullable(),
  imageGCHighThresholdPercent: int32(),
  imageGCLowThresholdPercent: int32(),
  containerLogMaxSize: str(),
  containerLogMaxFiles: int32(),
  containerLogMaxWorkers: int32(),
  containerLogMonitorInterval: duration(),
  podLogsDir: str(),
  crashLoopBackOff: z.strictObject({ maxContainerRestartPeriod: duration().nullable() }).optional(),
  seccompDefault: bool(),

  // pods and resources
  maxPods: int32(),
  podsPerCore: int32(),
  podPidsLimit: int(),
  podCIDR: str(),
  maxOpenFiles: int(),
  clusterDomain: str(),
  clusterDNS: strings(),
  resolvConf: str(),
  hairpinMode: str(),
  allowedUnsafeSysctls: strings(),
  makeIPTablesUtilChains: bool(),
  protectKernelDefaults: bool(),
  oomScoreAdj: int32(),
  volumePluginDir: str(),
  volumeStatsAggPeriod: duration(),
  enableControllerAttachDetach: bool(),
  localStorageCapacityIsolation: bool(),
  kernelMemcgNotification: bool(),
  configMapAndSecretChangeDetectionStrategy: str(),
  iptablesMasqueradeBit: int32(),
  iptablesDropBit: int32(),
  shutdownGracePeriod: duration(),
  shutdownGracePeriodCriticalPods: duration(),
  shutdownGracePeriodByPodPriority: z.array(shutdownGracePeriodByPodPrioritySchema).optional(),

  // cgroups and resource managers
  cgroupDriver: str(),
  cgroupRoot: str(),
  cgroupsPerQOS: bool(),
  nodeagentCgroups: str(),
  systemCgroups: str(),
  cpuCFSQuota: bool(),
  cpuCFSQuotaPeriod: duration(),
  cpuManagerPolicy: str(),
  cpuManagerPolicyOptions: stringMap(),
  cpuManagerReconcilePeriod: duration(),
  memoryManagerPolicy: str(),
  topologyManagerPolicy: str(),
  topologyManagerPolicyOptions: stringMap(),
  topologyManagerScope: str(),
  qosReserved: stringMap(),
  systemReserved: quantityMap(),
  systemReservedCgroup: str(),
  platReserved: quantityMap(),
  platReservedCgroup: str(),
  reservedSystemCPUs: str(),
  reservedMemory: z.array(reservedMemorySchema).optional(),
  enforceNodeAllocatable: strings(),
  memorySwap: z.strictObject({ swapBehavior: str() }).optional(),
  memoryThrottlingFactor: z.number().optional(),
  /** Unset (null): true on cgroup v1 (the only behaviour there), false on v2. */
  singleProcessOOMKill: z.boolean().nullable().optional(),

  // eviction
  evictionHard: stringMap(),
  evictionSoft: stringMap(),
  evictionSoftGracePeriod: stringMap(),
  evictionMinimumReclaim: stringMap(),
  evictionPressureTransitionPeriod: duration(),
  evictionMaxPodGracePeriod: int32(),

  // host
  failSwapOn: bool(),
  failCgroupV1: bool(),

  featureGates: z.record(z.string(), z.boolean()).optional(),
  logging: loggingSchema.optional(),
});

/** What a config file or drop-in may hold: every field optional. */
export type NodeAgentConfigurationFile = z.infer<typeof nodeAgentConfigurationSchema>;

type DeepRequired<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { -readonly [K in keyof T]-?: DeepRequired<Exclude<T[K], undefined>> }
    : T;

/** The effective configuration: every field present (defaults filled in), quantities as strings. */
export type NodeAgentConfiguration = DeepRequired<
  Omit<
    NodeAgentConfigurationFile,
    'systemReserved' | 'platReserved' | 'reservedMemory' | 'logging' | 'tracing'
  >
> & {
  /** null: no tracing configuration (the reference's nil). */
  tracing: { endpoint?: string; samplingRatePerMillion?: number } | null;
  systemReserved: Record<string, string>;
  platReserved: Record<string, string>;
  reservedMemory: { numaNode: number; limits: Record<string, string> }[];
  logging: {
    format: string;
    flushFrequency: string;
    verbosity: number;
    vmodule: { filePattern: string; verbosity: number }[];
    options: { text: { splitStream: boolean; infoBufferSize: string } };
  };
};

export type Taint = z.infer<typeof taintSchema>;
