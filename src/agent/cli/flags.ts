// The flag table: one entry per option of the spec's node agent table, plus --platform-domain and
// --print-config. Everything else about a flag (parsing, --help, the man page, the mapping onto
// config-file fields, deprecation notices) is derived from these entries.
import type { FlagSpec, FlagNote } from './flag-spec.js';
import { DEFAULT_PLATFORM_DOMAIN, REFERENCE_NAMES } from '../../common/names.js';

const CFG: FlagNote = { kind: 'cfg' };
const EVICTION_INSTEAD: FlagNote = {
  kind: 'dep',
  reason: 'Use --eviction-hard or --eviction-soft instead. Will be removed in a future version.',
};

export const FLAGS: readonly FlagSpec[] = [
  {
    name: 'address',
    type: 'string',
    defaultText: '0.0.0.0',
    note: CFG,
    configPath: 'address',
    help:
      'IP address the agent server listens on; 0.0.0.0 or :: means every interface and IP ' +
      'family.',
  },
  {
    name: 'allowed-unsafe-sysctls',
    type: 'strings',
    note: CFG,
    configPath: 'allowedUnsafeSysctls',
    help:
      'Comma-separated allow list of unsafe sysctls or sysctl patterns (ending in *) that pods ' +
      'may set.',
  },
  {
    name: 'anonymous-auth',
    type: 'bool',
    defaultText: 'true',
    note: CFG,
    configPath: 'authentication.anonymous.enabled',
    help:
      'Accept anonymous requests to the agent server. Requests no other method rejects are ' +
      'treated as user system:anonymous in group system:unauthenticated.',
  },
  {
    name: 'authentication-token-webhook',
    type: 'bool',
    note: CFG,
    configPath: 'authentication.webhook.enabled',
    help: 'Authenticate bearer tokens with the TokenReview API.',
  },
  {
    name: 'authentication-token-webhook-cache-ttl',
    type: 'duration',
    defaultText: '2m0s',
    note: CFG,
    configPath: 'authentication.webhook.cacheTTL',
    help: 'How long responses of the webhook token authenticator are cached.',
  },
  {
    name: 'authorization-mode',
    type: 'string',
    defaultText: 'AlwaysAllow',
    note: CFG,
    configPath: 'authorization.mode',
    help:
      'Authorization mode of the agent server: AlwaysAllow or Webhook (which asks the ' +
      'SubjectAccessReview API).',
  },
  {
    name: 'authorization-webhook-cache-authorized-ttl',
    type: 'duration',
    defaultText: '5m0s',
    note: CFG,
    configPath: 'authorization.webhook.cacheAuthorizedTTL',
    help: "How long the webhook authorizer caches 'authorized' responses.",
  },
  {
    name: 'authorization-webhook-cache-unauthorized-ttl',
    type: 'duration',
    defaultText: '30s',
    note: CFG,
    configPath: 'authorization.webhook.cacheUnauthorizedTTL',
    help: "How long the webhook authorizer caches 'unauthorized' responses.",
  },
  {
    name: 'bootstrap-platconfig',
    type: 'string',
    flagsField: 'bootstrapPlatconfig',
    help:
      'Platconfig file used to obtain a client certificate from the API server when the ' +
      '--platconfig file does not exist yet; the result is written to --platconfig and the ' +
      'certificate and key to --cert-dir.',
  },
  {
    name: 'cert-dir',
    type: 'string',
    defaultText: '/var/lib/nodeagent/pki',
    flagsField: 'certDir',
    help:
      'Directory holding the TLS certificates. Ignored when both --tls-cert-file and ' +
      '--tls-private-key-file are given.',
  },
  {
    name: 'cgroup-driver',
    type: 'string',
    defaultText: 'cgroupfs',
    note: CFG,
    configPath: 'cgroupDriver',
    help: 'Driver used to manage cgroups on the host: cgroupfs or systemd.',
  },
  {
    name: 'cgroup-root',
    type: 'string',
    defaultText: 'empty (runtime default)',
    note: CFG,
    configPath: 'cgroupRoot',
    help: 'Optional root cgroup for pods, handled best-effort by the container runtime.',
  },
  {
    name: 'cgroups-per-qos',
    type: 'bool',
    defaultText: 'true',
    note: CFG,
    configPath: 'cgroupsPerQOS',
    help:
      'Create the QoS cgroup hierarchy (a top-level cgroup per QoS class, pod cgroups ' +
      'beneath).',
  },
  {
    name: 'client-ca-file',
    type: 'string',
    note: CFG,
    configPath: 'authentication.x509.clientCAFile',
    help:
      'Clients presenting a certificate signed by an authority in this file are authenticated ' +
      'with the certificate CommonName as their identity.',
  },
  {
    name: 'cloud-provider',
    type: 'string',
    flagsField: 'cloudProvider',
    help: 'Cloud provider: empty for none, or external for an external provider.',
  },
  {
    name: 'cluster-dns',
    type: 'strings',
    note: CFG,
    configPath: 'clusterDNS',
    help:
      'Comma-separated DNS server IPs for pods with dnsPolicy=ClusterFirst. All servers must ' +
      'serve the same records; which one is asked is not guaranteed.',
  },
  {
    name: 'cluster-domain',
    type: 'string',
    note: CFG,
    configPath: 'clusterDomain',
    help: 'Cluster domain; when set, containers also search this domain.',
  },
  {
    name: 'config',
    type: 'string',
    flagsField: 'config',
    help:
      'The NodeAgentConfiguration file to start from (absolute, or relative to the working ' +
      'directory). Omit it for the built-in defaults. Flags override the file.',
  },
  {
    name: 'config-dir',
    type: 'string',
    defaultText: 'empty',
    flagsField: 'configDir',
    help:
      'Directory of drop-in files that override the defaults and --config. Only files ending in ' +
      '.conf are read, subdirectories included, in lexical order.',
  },
  {
    name: 'container-log-max-files',
    type: 'int32',
    defaultText: '5',
    note: CFG,
    stage: 'beta',
    configPath: 'containerLogMaxFiles',
    help: 'Most log files kept per container; at least 2.',
  },
  {
    name: 'container-log-max-size',
    type: 'string',
    defaultText: '10Mi',
    note: CFG,
    stage: 'beta',
    configPath: 'containerLogMaxSize',
    help: 'Size a container log file reaches before it is rotated (a quantity such as 10Mi).',
  },
  {
    name: 'container-runtime-endpoint',
    type: 'string',
    defaultText: 'unix:///run/<runtime>/<runtime>.sock',
    note: CFG,
    configPath: 'containerRuntimeEndpoint',
    help:
      'Endpoint of the container runtime service: a unix socket on Linux, npipe or tcp on ' +
      'Windows.',
  },
  {
    name: 'contention-profiling',
    type: 'bool',
    note: CFG,
    configPath: 'enableContentionProfiling',
    help: 'Enable block profiling when profiling is on.',
  },
  {
    name: 'cpu-cfs-quota',
    type: 'bool',
    defaultText: 'true',
    note: CFG,
    configPath: 'cpuCFSQuota',
    help: 'Enforce the CPU CFS quota of containers that set CPU limits.',
  },
  {
    name: 'cpu-cfs-quota-period',
    type: 'duration',
    defaultText: '100ms',
    note: CFG,
    configPath: 'cpuCFSQuotaPeriod',
    requiresGate: 'CustomCPUCFSQuotaPeriod',
    help:
      'CPU CFS quota period. A value other than the default needs the CustomCPUCFSQuotaPeriod ' +
      'feature gate.',
  },
  {
    name: 'cpu-manager-policy',
    type: 'string',
    defaultText: 'none',
    note: CFG,
    configPath: 'cpuManagerPolicy',
    help: 'CPU manager policy: none or static.',
  },
  {
    name: 'cpu-manager-policy-options',
    type: 'mapStringString',
    note: CFG,
    configPath: 'cpuManagerPolicyOptions',
    requiresGate: 'CPUManagerPolicyOptions',
    help: 'key=value options that fine-tune the CPU manager policy.',
  },
  {
    name: 'cpu-manager-reconcile-period',
    type: 'duration',
    defaultText: '10s',
    note: CFG,
    stage: 'alpha',
    configPath: 'cpuManagerReconcilePeriod',
    help: 'How often the CPU manager reconciles; when unset, the node status update frequency.',
  },
  {
    name: 'enable-controller-attach-detach',
    type: 'bool',
    defaultText: 'true',
    note: CFG,
    configPath: 'enableControllerAttachDetach',
    help:
      'Leave attaching and detaching of volumes to the attach/detach controller; the agent does ' +
      'neither.',
  },
  {
    name: 'enable-debugging-handlers',
    type: 'bool',
    defaultText: 'true',
    note: CFG,
    configPath: 'enableDebuggingHandlers',
    help: 'Serve the endpoints for log collection and for running containers and commands locally.',
  },
  {
    name: 'enable-server',
    type: 'bool',
    defaultText: 'true',
    note: CFG,
    configPath: 'enableServer',
    help: "Run the agent's server.",
  },
  {
    name: 'enforce-node-allocatable',
    type: 'strings',
    defaultText: 'pods',
    note: CFG,
    configPath: 'enforceNodeAllocatable',
    help:
      'Allocatable levels to enforce: none, pods, system-reserved, ' +
      'system-reserved-compressible, plat-reserved, plat-reserved-compressible. The ' +
      'system-reserved levels need --system-reserved-cgroup, the plat-reserved levels ' +
      '--plat-reserved-cgroup; none excludes every other level.',
  },
  {
    name: 'event-burst',
    type: 'int32',
    defaultText: '100',
    note: CFG,
    configPath: 'eventBurst',
    help: 'Burst size of event records, at least 0; 0 means 10.',
  },
  {
    name: 'event-qps',
    type: 'int32',
    defaultText: '50',
    note: CFG,
    configPath: 'eventRecordQPS',
    help: 'Events created per second, at least 0; 0 means 5.',
  },
  {
    name: 'eviction-hard',
    type: 'mapStringString',
    lessThanPairs: true,
    note: CFG,
    configPath: 'evictionHard',
    help:
      'Hard eviction thresholds that trigger pod eviction at once, as signal<quantity pairs ' +
      '(memory.available<100Mi,nodefs.available<10%); signal=quantity is accepted too.',
  },
  {
    name: 'eviction-max-pod-grace-period',
    type: 'int32',
    note: CFG,
    configPath: 'evictionMaxPodGracePeriod',
    help:
      'Longest grace period in seconds given to pods terminated for a soft eviction threshold; ' +
      "negative uses the pod's own value.",
  },
  {
    name: 'eviction-minimum-reclaim',
    type: 'mapStringString',
    note: CFG,
    configPath: 'evictionMinimumReclaim',
    help:
      'Least amount of each resource reclaimed once eviction starts under pressure, as ' +
      'signal=quantity pairs (memory.available=0Mi).',
  },
  {
    name: 'eviction-pressure-transition-period',
    type: 'duration',
    defaultText: '5m0s',
    note: CFG,
    configPath: 'evictionPressureTransitionPeriod',
    help: 'How long to wait before leaving an eviction pressure condition.',
  },
  {
    name: 'eviction-soft',
    type: 'mapStringString',
    lessThanPairs: true,
    note: CFG,
    configPath: 'evictionSoft',
    help:
      'Soft eviction thresholds that trigger eviction when they hold for their grace period, as ' +
      'signal<quantity pairs (memory.available<1.5Gi); signal=quantity is accepted too.',
  },
  {
    name: 'eviction-soft-grace-period',
    type: 'mapStringString',
    note: CFG,
    configPath: 'evictionSoftGracePeriod',
    help:
      'How long each soft eviction threshold must hold before pods are evicted, as ' +
      'signal=duration pairs (memory.available=1m30s).',
  },
  {
    name: 'exit-on-lock-contention',
    type: 'bool',
    flagsField: 'exitOnLockContention',
    help: 'Exit when another process contends for the --lock-file.',
  },
  {
    name: 'experimental-allocatable-ignore-eviction',
    type: 'bool',
    defaultText: 'false',
    note: { kind: 'dep', reason: 'will be removed in 1.25 or later.' },
    flagsField: 'experimentalAllocatableIgnoreEviction',
    help: 'Leave hard eviction thresholds out when computing node allocatable.',
  },
  {
    name: 'experimental-mounter-path',
    type: 'string',
    note: { kind: 'dep', reason: 'will be removed in 1.25 or later, in favor of using CSI.' },
    flagsField: 'experimentalMounterPath',
    help: 'Path of the mounter binary; empty uses the default mount.',
  },
  {
    name: 'fail-cgroupv1',
    type: 'bool',
    defaultText: 'true',
    configPath: 'failCgroupV1',
    help: 'Refuse to start on a host that uses cgroup v1.',
  },
  {
    name: 'fail-swap-on',
    type: 'bool',
    defaultText: 'true',
    note: CFG,
    configPath: 'failSwapOn',
    help: 'Refuse to start when swap is enabled on the host.',
  },
  {
    name: 'feature-gates',
    type: 'featureGates',
    configPath: 'featureGates',
    help:
      'Comma-separated Name=true|false pairs that switch alpha, beta or experimental features ' +
      'on or off.',
  },
  {
    name: 'file-check-frequency',
    type: 'duration',
    defaultText: '20s',
    note: CFG,
    configPath: 'fileCheckFrequency',
    help: 'How often the static pod files are checked for new data.',
  },
  {
    name: 'hairpin-mode',
    type: 'string',
    defaultText: 'promiscuous-bridge',
    note: CFG,
    configPath: 'hairpinMode',
    help: 'How hairpin NAT is set up: promiscuous-bridge, hairpin-veth or none.',
  },
  {
    name: 'healthz-bind-address',
    type: 'string',
    defaultText: '127.0.0.1',
    note: CFG,
    configPath: 'healthzBindAddress',
    help: 'Address the healthz server listens on; 0.0.0.0 or :: for every interface.',
  },
  {
    name: 'healthz-port',
    type: 'int32',
    defaultText: '10248',
    note: CFG,
    configPath: 'healthzPort',
    help: 'Port of the local healthz endpoint; 0 disables it.',
  },
  { name: 'help', short: 'h', type: 'help', help: 'Print this help and exit.' },
  {
    name: 'hostname-override',
    type: 'string',
    flagsField: 'hostnameOverride',
    help: "Name used to identify the node instead of the host's actual hostname.",
  },
  {
    name: 'http-check-frequency',
    type: 'duration',
    defaultText: '20s',
    note: CFG,
    configPath: 'httpCheckFrequency',
    help: 'How often the --manifest-url source is checked for new data.',
  },
  {
    name: 'image-credential-provider-bin-dir',
    type: 'string',
    flagsField: 'imageCredentialProviderBinDir',
    help: 'Directory holding the image credential provider plugin binaries.',
  },
  {
    name: 'image-credential-provider-config',
    type: 'string',
    flagsField: 'imageCredentialProviderConfig',
    help:
      'Image credential provider plugin configuration file (JSON, YAML or YML), or a directory ' +
      'of such files merged in lexical order (not recursive).',
  },
  {
    name: 'image-gc-high-threshold',
    type: 'int32',
    defaultText: '85',
    note: CFG,
    configPath: 'imageGCHighThresholdPercent',
    help:
      'Disk usage percent above which image garbage collection always runs; range [0,100], 100 ' +
      'disables image garbage collection.',
  },
  {
    name: 'image-gc-low-threshold',
    type: 'int32',
    defaultText: '80',
    note: CFG,
    configPath: 'imageGCLowThresholdPercent',
    help:
      'Disk usage percent below which image garbage collection never runs; range [0,100], below ' +
      '--image-gc-high-threshold.',
  },
  {
    name: 'image-service-endpoint',
    type: 'string',
    defaultText: 'same as --container-runtime-endpoint',
    note: CFG,
    configPath: 'imageServiceEndpoint',
    help: 'Endpoint of the container image service.',
  },
  {
    name: 'kernel-memcg-notification',
    type: 'bool',
    note: CFG,
    configPath: 'kernelMemcgNotification',
    help:
      'Learn of memory eviction thresholds through kernel memcg notifications instead of ' +
      'polling.',
  },
  {
    name: 'plat-api-burst',
    type: 'int32',
    defaultText: '100',
    note: CFG,
    configPath: 'platAPIBurst',
    help:
      'Burst of requests to the API server, at least 0; 0 means 100. Events and node heartbeats ' +
      'are counted separately.',
  },
  {
    name: 'plat-api-content-type',
    type: 'string',
    defaultText: 'application/vnd.platform.protobuf',
    note: CFG,
    configPath: 'platAPIContentType',
    help: 'Content type of the requests sent to the API server.',
  },
  {
    name: 'plat-api-qps',
    type: 'int32',
    defaultText: '50',
    note: CFG,
    configPath: 'platAPIQPS',
    help:
      'Requests per second to the API server, at least 0; 0 means 50. Events and node ' +
      'heartbeats are counted separately.',
  },
  {
    name: 'plat-reserved',
    type: 'mapStringString',
    defaultText: 'none',
    note: CFG,
    configPath: 'platReserved',
    help:
      'Resources set aside for the platform system components, as cpu=, memory=, pid= and ' +
      'ephemeral-storage= (root file system) pairs.',
  },
  {
    name: 'plat-reserved-cgroup',
    type: 'string',
    defaultText: 'empty',
    note: CFG,
    configPath: 'platReservedCgroup',
    help: 'Absolute name of the top-level cgroup that holds the --plat-reserved resources.',
  },
  {
    name: 'platconfig',
    type: 'string',
    flagsField: 'platconfig',
    help:
      'Platconfig file saying how to reach the API server. When given, the agent runs in API ' +
      'server mode; without it, standalone.',
  },
  {
    name: 'nodeagent-cgroups',
    type: 'string',
    note: CFG,
    configPath: 'nodeagentCgroups',
    help: 'Optional absolute name of a cgroup to create and run the agent in.',
  },
  {
    name: 'local-storage-capacity-isolation',
    type: 'bool',
    defaultText: 'true',
    note: CFG,
    configPath: 'localStorageCapacityIsolation',
    help: 'Isolate local ephemeral storage (enforce its requests and limits).',
  },
  {
    name: 'lock-file',
    type: 'string',
    stage: 'alpha',
    flagsField: 'lockFile',
    help: 'Path of the lock file the agent holds while it runs.',
  },
  {
    name: 'log-flush-frequency',
    type: 'duration',
    defaultText: '5s',
    configPath: 'logging.flushFrequency',
    help: 'Longest time between two flushes of the log.',
  },
  {
    name: 'log-text-info-buffer-size',
    type: 'quantity',
    defaultText: 'zero bytes (no buffering)',
    note: CFG,
    stage: 'alpha',
    configPath: 'logging.options.text.infoBufferSize',
    requiresGate: 'LoggingAlphaOptions',
    help:
      'With split streams in text format, buffer this much info output before writing it. Needs ' +
      'the LoggingAlphaOptions feature gate.',
  },
  {
    name: 'log-text-split-stream',
    type: 'bool',
    note: CFG,
    stage: 'alpha',
    configPath: 'logging.options.text.splitStream',
    requiresGate: 'LoggingAlphaOptions',
    help:
      'In text format, write errors to stderr and info to stdout. Needs the LoggingAlphaOptions ' +
      'feature gate.',
  },
  {
    name: 'logging-format',
    type: 'string',
    defaultText: 'text',
    note: CFG,
    configPath: 'logging.format',
    help: 'Log format; text is the one permitted.',
  },
  {
    name: 'make-iptables-util-chains',
    type: 'bool',
    defaultText: 'true',
    note: CFG,
    configPath: 'makeIPTablesUtilChains',
    help: 'Make sure the iptables utility rules exist on the host.',
  },
  {
    name: 'manifest-url',
    type: 'string',
    note: CFG,
    configPath: 'staticPodURL',
    help: 'URL to fetch additional static pod specifications from.',
  },
  {
    name: 'manifest-url-header',
    type: 'colonMultimap',
    note: CFG,
    configPath: 'staticPodURLHeader',
    help:
      'Comma-separated name:value HTTP headers sent with --manifest-url requests. May be ' +
      'repeated; headers with the same name are sent in the order given.',
  },
  {
    name: 'max-open-files',
    type: 'int',
    defaultText: '1000000',
    note: CFG,
    configPath: 'maxOpenFiles',
    help: 'Number of files the agent process may open.',
  },
  {
    name: 'max-pods',
    type: 'int32',
    defaultText: '110',
    note: CFG,
    configPath: 'maxPods',
    help: 'Number of pods that can run on this node.',
  },
  {
    name: 'maximum-dead-containers',
    type: 'int32',
    defaultText: '-1',
    note: EVICTION_INSTEAD,
    flagsField: 'maximumDeadContainers',
    help: 'Old container instances kept in total on the node; negative disables the limit.',
  },
  {
    name: 'maximum-dead-containers-per-container',
    type: 'int32',
    defaultText: '1',
    note: EVICTION_INSTEAD,
    flagsField: 'maximumDeadContainersPerContainer',
    help: 'Old instances kept of each container.',
  },
  {
    name: 'memory-manager-policy',
    type: 'string',
    defaultText: 'None',
    note: CFG,
    configPath: 'memoryManagerPolicy',
    help: 'Memory manager policy: None or Static.',
  },
  {
    name: 'minimum-container-ttl-duration',
    type: 'duration',
    note: EVICTION_INSTEAD,
    flagsField: 'minimumContainerTTLDuration',
    help: 'Age a finished container must reach before it is garbage collected.',
  },
  {
    name: 'minimum-image-ttl-duration',
    type: 'duration',
    defaultText: '2m0s',
    note: CFG,
    configPath: 'imageMinimumGCAge',
    help: 'Age an unused image must reach before it is garbage collected.',
  },
  {
    name: 'node-ip',
    type: 'string',
    flagsField: 'nodeIP',
    help:
      'IP address of the node, or two comma-separated addresses for dual stack. Unset: the ' +
      'default IPv4 address, else the default IPv6 address; :: prefers IPv6.',
  },
  {
    name: 'node-labels',
    type: 'mapStringString',
    flagsField: 'nodeLabels',
    help:
      'Labels added when the node registers. Labels in the platform-reserved namespace must ' +
      'start with an allowed prefix or be one of the allowed architecture, instance-type, OS, ' +
      'hostname, region and zone labels (legacy and current forms).',
  },
  {
    name: 'node-status-max-images',
    type: 'int32',
    defaultText: '50',
    note: CFG,
    configPath: 'nodeStatusMaxImages',
    help: 'Most images reported in the node status; -1 means no cap.',
  },
  {
    name: 'node-status-update-frequency',
    type: 'duration',
    defaultText: '10s',
    note: CFG,
    configPath: 'nodeStatusUpdateFrequency',
    help:
      "How often the node status is posted; keep it in step with the node controller's grace " +
      'period.',
  },
  {
    name: 'oom-score-adj',
    type: 'int32',
    defaultText: '-999',
    note: CFG,
    configPath: 'oomScoreAdj',
    help: 'oom_score_adj of the agent process, in [-1000, 1000].',
  },
  {
    name: 'pod-cidr',
    type: 'string',
    note: CFG,
    configPath: 'podCIDR',
    help:
      'CIDR of pod IP addresses, used in standalone mode only. For IPv6 at most 65536 addresses ' +
      'are allocated.',
  },
  // Not in the spec: the reference 1.32 keeps it only for kubeadm's kubeadm-flags.env, deprecated,
  // its value discarded.
  {
    name: 'pod-infra-container-image',
    type: 'string',
    note: {
      kind: 'dep',
      reason:
        'will be removed in 1.35. Image garbage collector will get sandbox image information ' +
        'from CRI. Its value is ignored, as the reference 1.32 ignores it: nodeagent runs no ' +
        'sandbox (pause) container.',
    },
    flagsField: 'podInfraContainerImage',
    help:
      'Accepted for kubeadm drop-ins and ignored, as by the reference 1.32 (deprecated): ' +
      'nodeagent runs no pod sandbox image.',
  },
  {
    name: 'pod-manifest-path',
    type: 'string',
    note: CFG,
    configPath: 'staticPodPath',
    help:
      'Directory of static pod files, or a single file. Files whose names start with a dot are ' +
      'ignored.',
  },
  {
    name: 'pod-max-pids',
    type: 'int',
    defaultText: '-1',
    note: CFG,
    configPath: 'podPidsLimit',
    help: 'Most processes per pod; -1 uses the pid capacity of node allocatable.',
  },
  {
    name: 'pods-per-core',
    type: 'int32',
    note: CFG,
    configPath: 'podsPerCore',
    help: 'Pods per CPU core; the total never exceeds --max-pods. 0 disables the limit.',
  },
  {
    name: 'port',
    type: 'int32',
    defaultText: '10250',
    note: CFG,
    configPath: 'port',
    help: 'Port the agent server listens on.',
  },
  {
    name: 'protect-kernel-defaults',
    type: 'bool',
    note: CFG,
    configPath: 'protectKernelDefaults',
    help: "Fail when a kernel tunable differs from the agent's defaults instead of changing it.",
  },
  {
    name: 'provider-id',
    type: 'string',
    configPath: 'providerID',
    help: 'Unique identifier of the node in a machine database (for example a cloud provider).',
  },
  {
    name: 'qos-reserved',
    type: 'mapStringString',
    note: CFG,
    stage: 'alpha',
    configPath: 'qosReserved',
    requiresGate: 'QOSReserved',
    help:
      'Percentage of pod resource requests reserved at each QoS level, as memory=<percent>; ' +
      'only memory is supported. Needs the QOSReserved feature gate.',
  },
  {
    name: 'read-only-port',
    type: 'int32',
    defaultText: '10255',
    note: CFG,
    configPath: 'readOnlyPort',
    help:
      'Port of the read-only server, which has no authentication or authorization; 0 disables ' +
      'it.',
  },
  {
    name: 'register-node',
    type: 'bool',
    defaultText: 'true',
    note: CFG,
    configPath: 'registerNode',
    help: 'Register the node with the API server; has no effect without --platconfig.',
  },
  {
    name: 'register-with-taints',
    type: 'taints',
    note: CFG,
    configPath: 'registerWithTaints',
    help:
      'Taints the node registers with, as comma-separated <key>=<value>:<effect>. No effect ' +
      'when --register-node is false.',
  },
  {
    name: 'registry-burst',
    type: 'int32',
    defaultText: '10',
    note: CFG,
    configPath: 'registryBurst',
    help: 'Burst of image pulls; only used when --registry-qps is above 0.',
  },
  {
    name: 'registry-qps',
    type: 'int32',
    defaultText: '5',
    note: CFG,
    configPath: 'registryPullQPS',
    help: 'Image pulls per second; 0 means unlimited.',
  },
  {
    name: 'reserved-cpus',
    type: 'string',
    note: CFG,
    configPath: 'reservedSystemCPUs',
    help:
      'CPUs or CPU ranges (such as 0-3,8) reserved for the system and platform; supersedes the ' +
      'CPU amounts of --system-reserved and --plat-reserved.',
  },
  {
    name: 'reserved-memory',
    type: 'reservedMemory',
    note: CFG,
    configPath: 'reservedMemory',
    help:
      'Memory reserved per NUMA node, as <node>:<type>=<quantity>,... separated by semicolons ' +
      '(0:memory=1Gi,hugepages-1Gi=2Gi;1:memory=2Gi). Per memory type the total must equal the ' +
      'platform-reserved, system-reserved and hard eviction amounts together.',
  },
  {
    name: 'resolv-conf',
    type: 'string',
    defaultText: '/etc/resolv.conf',
    note: CFG,
    configPath: 'resolvConf',
    help: 'Resolver configuration file that container DNS is built from.',
  },
  {
    name: 'root-dir',
    type: 'string',
    defaultText: '/var/lib/nodeagent',
    flagsField: 'rootDir',
    help: "Directory of the agent's files (volume mounts and the like).",
  },
  {
    name: 'rotate-certificates',
    type: 'bool',
    note: CFG,
    configPath: 'rotateCertificates',
    help: 'Request a new client certificate from the API server as the current one nears expiry.',
  },
  {
    name: 'rotate-server-certificates',
    type: 'bool',
    note: CFG,
    configPath: 'serverTLSBootstrap',
    requiresGate: 'RotatePlatletServerCertificate',
    help:
      'Request the serving certificate from the API server and renew it as it nears expiry. ' +
      'Needs the RotatePlatletServerCertificate feature gate and approval of the submitted ' +
      'requests.',
  },
  {
    name: 'runonce',
    type: 'bool',
    note: CFG,
    configPath: 'runOnce',
    help:
      'Start the pods from static files or the manifest URL, then exit. Exclusive with ' +
      '--enable-server.',
  },
  {
    name: 'runtime-cgroups',
    type: 'string',
    flagsField: 'runtimeCgroups',
    help: 'Optional absolute name of a cgroup to create and run the container runtime in.',
  },
  {
    name: 'runtime-request-timeout',
    type: 'duration',
    defaultText: '2m0s',
    note: CFG,
    configPath: 'runtimeRequestTimeout',
    help:
      'Timeout of every runtime request except long-running ones (pull, logs, exec, attach). A ' +
      'request that times out is cancelled, reported as an error and retried later.',
  },
  {
    name: 'seccomp-default',
    type: 'seccompDefault',
    configPath: 'seccompDefault',
    help: 'Use RuntimeDefault as the default seccomp profile of every workload.',
  },
  {
    name: 'serialize-image-pulls',
    type: 'bool',
    defaultText: 'true',
    note: CFG,
    configPath: 'serializeImagePulls',
    help: 'Pull one image at a time.',
  },
  {
    name: 'streaming-connection-idle-timeout',
    type: 'duration',
    defaultText: '4h0m0s',
    note: CFG,
    configPath: 'streamingConnectionIdleTimeout',
    help:
      'Longest a streaming connection may sit idle before it is closed; 0 means no timeout. No ' +
      'connection to the agent server lasts more than 4 hours.',
  },
  {
    name: 'sync-frequency',
    type: 'duration',
    defaultText: '1m0s',
    note: CFG,
    configPath: 'syncFrequency',
    help: 'Longest time between two syncs of the running containers with the configuration.',
  },
  {
    name: 'system-cgroups',
    type: 'string',
    note: CFG,
    configPath: 'systemCgroups',
    help:
      'Optional absolute cgroup for the non-kernel processes not yet in a cgroup under /. Empty ' +
      'for none; undoing it needs a reboot.',
  },
  {
    name: 'system-reserved',
    type: 'mapStringString',
    defaultText: 'none',
    note: CFG,
    configPath: 'systemReserved',
    help:
      'Resources set aside for non-platform system components, as cpu=, memory=, pid= and ' +
      'ephemeral-storage= (root file system) pairs.',
  },
  {
    name: 'system-reserved-cgroup',
    type: 'string',
    defaultText: 'empty',
    note: CFG,
    configPath: 'systemReservedCgroup',
    help: 'Absolute name of the top-level cgroup that holds the --system-reserved resources.',
  },
  {
    name: 'tls-cert-file',
    type: 'string',
    note: CFG,
    configPath: 'tlsCertFile',
    help:
      'x509 certificate for HTTPS, intermediate certificates appended after the server ' +
      'certificate. Without it and --tls-private-key-file, a self-signed pair is generated for ' +
      'the public address and kept in --cert-dir.',
  },
  {
    name: 'tls-cipher-suites',
    type: 'strings',
    defaultText: 'runtime default suites',
    configPath: 'tlsCipherSuites',
    help: 'Comma-separated cipher suites the server offers.',
  },
  {
    name: 'tls-min-version',
    type: 'string',
    note: CFG,
    configPath: 'tlsMinVersion',
    help: 'Lowest TLS version accepted: VersionTLS10, VersionTLS11, VersionTLS12 or VersionTLS13.',
  },
  {
    name: 'tls-private-key-file',
    type: 'string',
    note: CFG,
    configPath: 'tlsPrivateKeyFile',
    help: 'Private key that matches --tls-cert-file.',
  },
  {
    name: 'topology-manager-policy',
    type: 'string',
    defaultText: 'none',
    note: CFG,
    configPath: 'topologyManagerPolicy',
    help: 'Topology manager policy: none, best-effort, restricted or single-numa-node.',
  },
  {
    name: 'topology-manager-policy-options',
    type: 'mapStringString',
    note: CFG,
    configPath: 'topologyManagerPolicyOptions',
    requiresGate: 'TopologyManagerPolicyOptions',
    help: 'key=value options that fine-tune the topology manager policy.',
  },
  {
    name: 'topology-manager-scope',
    type: 'string',
    defaultText: 'container',
    note: CFG,
    configPath: 'topologyManagerScope',
    help: 'Scope of topology hints: container or pod.',
  },
  {
    name: 'v',
    short: 'v',
    type: 'int',
    configPath: 'logging.verbosity',
    help: 'Log verbosity level.',
  },
  {
    name: 'version',
    type: 'version',
    help:
      'Print version information and exit; --version=raw prints the full record; ' +
      '--version=vX.Y.Z sets the version the agent reports.',
  },
  {
    name: 'vmodule',
    type: 'vmodule',
    configPath: 'logging.vmodule',
    help: 'Per-file verbosity as comma-separated pattern=N pairs (text format only).',
  },
  {
    name: 'volume-plugin-dir',
    type: 'string',
    defaultText: '/usr/libexec/plat/nodeagent-plugins/volume/exec/',
    note: CFG,
    configPath: 'volumePluginDir',
    help: 'Directory searched for third-party volume plugins.',
  },
  {
    name: 'volume-stats-agg-period',
    type: 'duration',
    defaultText: '1m0s',
    note: CFG,
    configPath: 'volumeStatsAggPeriod',
    help: 'How often the disk usage of volumes is computed and cached; negative disables it.',
  },
  // Ours, not in the spec's table.
  {
    name: 'platform-domain',
    type: 'string',
    defaultText: DEFAULT_PLATFORM_DOMAIN,
    configPath: 'platformDomain',
    help:
      'The platform domain every API group, signer, label and annotation derives from (also the ' +
      'config file apiVersion nodeagent.config.<domain>/v1beta1).',
  },
  {
    name: 'platform-profile',
    type: 'string',
    defaultText: 'platform',
    configPath: 'platformProfile',
    help:
      `The naming profile: platform (names from --platform-domain) or kubernetes ` +
      `(upstream Kubernetes 1.32 names: ${REFERENCE_NAMES.labelDomain} signers and labels, ` +
      `${REFERENCE_NAMES.groupDomain} groups, a KubeletConfiguration config file, and the ` +
      `reference spellings of flags such as --kubeconfig). Unset, a reference flag ` +
      `spelling or a KubeletConfiguration file selects kubernetes; input of both profiles ` +
      `is an error.`,
  },
  {
    name: 'print-config',
    type: 'bool',
    help:
      'Print the effective configuration (a NodeAgentConfiguration document, then a ' +
      'NodeAgentFlags document with the flag-only settings) and exit; with errors, print them ' +
      'and exit 1. Starts nothing.',
  },
];

const BY_NAME: ReadonlyMap<string, FlagSpec> = new Map(FLAGS.map((f) => [f.name, f]));
const BY_SHORT: ReadonlyMap<string, FlagSpec> = new Map(
  FLAGS.flatMap((f) => (f.short === undefined ? [] : [[f.short, f] as const])),
);
const BY_CONFIG_PATH: ReadonlyMap<string, FlagSpec> = new Map(
  FLAGS.flatMap((f) => (f.configPath === undefined ? [] : [[f.configPath, f] as const])),
);

/** The entry for a long name (without dashes; `_` is read as `-`), or undefined. */
export function flagByName(name: string): FlagSpec | undefined {
  return BY_NAME.get(name.replace(/_/g, '-'));
}

/** The entry for a one-letter alias (`v`, `h`), or undefined. */
export function flagByShort(letter: string): FlagSpec | undefined {
  return BY_SHORT.get(letter);
}

/** The flag that sets a config-file field (dot path), or undefined for fields without one. */
export function configPathToFlag(path: string): FlagSpec | undefined {
  return BY_CONFIG_PATH.get(path);
}

/** `field (--flag)` for validation messages, or just the field when no flag sets it. */
export function fieldWithFlag(path: string): string {
  const f = BY_CONFIG_PATH.get(path);
  return f === undefined ? path : `${path} (--${f.name})`;
}
