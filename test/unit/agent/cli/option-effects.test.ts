// Every option of the flag table maps to a test that shows its effect, or an explicit reason why it
// has none. A new option without an entry fails this test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import {
  INERT_FIELDS,
  inertFieldsSet,
  logInertFields,
} from '../../../../src/agent/cli/inert-options.js';
import { FILE_ONLY_FIELDS } from '../../../../src/agent/config/file-only-fields.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { defaultConfiguration } from '../../../../src/agent/config/defaults.js';

interface Effect {
  /** Source path of the test file, from the repository root. */
  file: string;
  /** The test's title, exactly. */
  test: string;
}

const OPTS_UNIT = 'test/unit/agent/runtime/settings';
const DOCKER_OPTS = {
  file: 'test/integration/agent/pods/options-docker.test.ts',
  test: 'Docker containers carry the reference CPU, pids, oom, seccomp, sysctl and DNS settings',
};
const NODE_OPTS = 'test/integration/agent/node/node-options-apiserver.test.ts';
const HOST_CHECKS = 'test/integration/agent/cli/host-checks.test.ts';
const CREDENTIALS = {
  file: 'test/integration/agent/pods/credential-provider-docker.test.ts',
  test: 'a private-registry pull through a credential provider plugin; without it ErrImagePull with the registry refusal',
};

const CM_UNIT = 'test/unit/agent/cm/managers.test.ts';
const CM_RECONCILE = 'test/unit/agent/cm/reconcile.test.ts';
const CPU_MANAGER_DOCKER = {
  file: 'test/integration/agent/pods/cpu-manager-docker.test.ts',
  test: 'static CPU manager on Docker: a Guaranteed pod gets an exclusive CPU (CpusetCpus), a Burstable one the shared pool; cpu_manager_state lists it',
};
const AGENT_NODE = 'test/integration/agent/server/agent-node-apiserver.test.ts';
const SERVER_ANSWERS = { file: AGENT_NODE, test: "the agent's server answers only whom it should" };
const NODE_REGISTERED = {
  file: AGENT_NODE,
  test: 'the agent registers a Ready node with its labels, taints, addresses and conditions',
};
const NODE_SERVERS_OFF = {
  file: NODE_OPTS,
  test: '--register-node=false registers no Node; --enable-server=false opens nothing on --port; --healthz-bind-address moves the healthz server',
};
const AUTH_CACHES = {
  file: 'test/integration/agent/server/agent-auth-caches.test.ts',
  test: 'webhook answers are cached for their TTLs and no longer: after that, with plat-apiserver gone, 500',
};
const BOOTSTRAP = {
  file: 'test/integration/agent/bootstrap/agent-bootstrap.test.ts',
  test: 'bootstrap with a token, auto-approval and signing; the platconfig works; a restart skips bootstrap',
};
const EVICTION_HARD = {
  file: 'test/unit/agent/eviction/eviction.test.ts',
  test: 'a hard threshold evicts the lowest priority, largest user first; pressure holds for the transition period',
};
const EVICTION_SOFT = {
  file: 'test/unit/agent/eviction/eviction.test.ts',
  test: 'a soft threshold waits for its grace period and caps the pod grace period',
};
const LOGGER = 'test/unit/common/log/logger.test.ts';
const DEAD_CONTAINERS = {
  file: 'test/unit/agent/gc/collector.test.ts',
  test: 'dead containers: per-container limit, minimum age, global limit, newest instance of an active pod kept',
};
const IMAGE_GC = {
  file: 'test/unit/agent/gc/collector.test.ts',
  test: 'images: removed oldest first above the high threshold down to the low one, in-use and young images kept',
};
const LOG_ROTATION = {
  file: 'test/unit/agent/gc/collector.test.ts',
  test: 'log rotation: over the size limit the log is copied to .1 (older ones shift) and truncated',
};
const ENDPOINTS = 'test/unit/agent/runtime/runtime-endpoints.test.ts';
const IMAGE_ENDPOINTS = {
  file: ENDPOINTS,
  test: '--image-service-endpoint takes the image calls to its own engine; --registry-qps and --registry-burst pace the pulls (the burst at once, then one each 1/qps s)',
};
const REST = 'test/unit/agent/client/rest-client.test.ts';
const SECURE_SERVER = 'test/unit/agent/server/secure-server.test.ts';
const ALLOCATABLE = {
  file: 'test/unit/agent/node/node-identity.test.ts',
  test: 'allocatable is capacity less system-reserved, plat-reserved and hard eviction thresholds',
};
const ADMISSION = 'test/unit/agent/worker/admission.test.ts';

// Tests that show the effect of more than one option or field, named once.
const DNS_CLUSTER_FIRST: Effect = {
  file: `${OPTS_UNIT}/dns.test.ts`,
  test: 'ClusterFirst: the cluster DNS only, the cluster search path then the host search, ndots:5',
};
const CFS_QUOTA: Effect = {
  file: `${OPTS_UNIT}/cpu-qos.test.ts`,
  test: '--cpu-cfs-quota-period sets the period; --cpu-cfs-quota=false sets no quota at all',
};
const PROFILING: Effect = {
  file: 'test/unit/agent/server/profiling.test.ts',
  test: 'enableProfilingHandler serves /debug/pprof/ (CPU profile, heap); --contention-profiling adds the event loop delay',
};
const LOCK_FILE: Effect = {
  file: HOST_CHECKS,
  test: '--lock-file with --exit-on-lock-contention: the holder is told when another process wants the lock',
};
const TLS_FILES: Effect = {
  file: 'test/unit/agent/certificate/serving-setup.test.ts',
  test: '--tls-cert-file/--tls-private-key-file are served and reloaded when they change',
};
const CM_MEMORY: Effect = {
  file: CM_UNIT,
  test: 'memory manager Static: memory reserved per NUMA node, cpuset.mems, memory_manager_state; the policy refuses what no node holds',
};
const NODE_CGROUPS: Effect = {
  file: 'test/unit/agent/cgroups/node-cgroups.test.ts',
  test: '--nodeagent-cgroups moves the agent into its cgroup; --system-cgroups moves the non-kernel processes of the root cgroup, never pid 1; "/" is refused',
};
const ENFORCE_ALLOCATABLE: Effect = {
  file: 'test/unit/agent/cgroups/node-cgroups.test.ts',
  test: '--enforce-node-allocatable: pods off leaves kubepods at capacity; system-reserved and plat-reserved limit their existing cgroups, compressible only CPU',
};
const PARALLEL_PULLS: Effect = {
  file: 'test/unit/agent/runtime/pull-queue.test.ts',
  test: 'maxParallelImagePulls: at most that many pulls at once with serializeImagePulls false; one when serialized',
};
const EVENT_LIMITS: Effect = {
  file: 'test/unit/agent/node/event-recorder.test.ts',
  test: 'writes are limited by event-qps/event-burst (0 means 5/10)',
};
const API_LIMITS: Effect = {
  file: REST,
  test: 'token bucket: burst then qps; events bypass the API limiter',
};

/** Options with a test that shows their effect. */
const EFFECTS: Readonly<Record<string, Effect>> = {
  'allowed-unsafe-sysctls': {
    file: `${OPTS_UNIT}/sysctls-seccomp.test.ts`,
    test: '--allowed-unsafe-sysctls patterns admit more; net sysctls are refused on the host network',
  },
  'cluster-dns': DNS_CLUSTER_FIRST,
  'cluster-domain': DNS_CLUSTER_FIRST,
  'resolv-conf': {
    file: `${OPTS_UNIT}/dns.test.ts`,
    test: '--resolv-conf="" gives a loopback resolver and search "."',
  },
  'cpu-cfs-quota': CFS_QUOTA,
  'cpu-cfs-quota-period': CFS_QUOTA,
  'pod-max-pids': DOCKER_OPTS,
  'image-credential-provider-config': CREDENTIALS,
  'contention-profiling': PROFILING,
  'runtime-request-timeout': {
    file: 'test/unit/agent/runtime/request-timeout.test.ts',
    test: '--runtime-request-timeout bounds process:// calls: the timeout, the grace period on top for stops, the exec timeout on top',
  },
  'image-credential-provider-bin-dir': CREDENTIALS,
  'seccomp-default': {
    file: `${OPTS_UNIT}/sysctls-seccomp.test.ts`,
    test: 'seccomp: Unconfined unless --seccomp-default or the pod asks for RuntimeDefault',
  },
  'oom-score-adj': {
    file: 'test/unit/agent/cli/kernel-defaults-oom.test.ts',
    test: '--oom-score-adj is written to the agent itself; when not permitted it says so naming the option',
  },
  'protect-kernel-defaults': {
    file: 'test/unit/agent/cli/kernel-defaults-oom.test.ts',
    test: '--protect-kernel-defaults refuses the start naming every setting that differs, in the reference words',
  },
  'exit-on-lock-contention': LOCK_FILE,
  'lock-file': LOCK_FILE,
  'fail-cgroupv1': {
    file: HOST_CHECKS,
    test: 'cgroup v1 is refused naming --fail-cgroupv1, unless it is false',
  },
  'fail-swap-on': {
    file: HOST_CHECKS,
    test: 'swap on is refused naming --fail-swap-on, unless it is false',
  },
  'max-open-files': {
    file: HOST_CHECKS,
    test: '--max-open-files raises the soft limit through prlimit, or warns naming the flag',
  },
  'hostname-override': {
    file: 'test/unit/agent/node/node-identity.test.ts',
    test: 'node name: --hostname-override or the host name, lower-cased',
  },
  'node-ip': {
    file: 'test/unit/agent/node/node-identity.test.ts',
    test: 'addresses: default-route interface, --node-ip, dual-stack and :: preferring IPv6',
  },
  'log-flush-frequency': {
    file: 'test/unit/common/log/logger.test.ts',
    test: 'the flush timer flushes buffered output every --log-flush-frequency',
  },
  'manifest-url': {
    file: 'test/e2e/static-pods-hostile.test.ts',
    test: 'hostile manifests (files and --manifest-url) are skipped with the limit named; the good pod keeps running',
  },
  runonce: {
    file: 'test/e2e/static-pods-runonce.test.ts',
    test: '--runonce: all pods (file and URL) running → exit 0 with a summary',
  },
  'tls-private-key-file': TLS_FILES,
  'tls-cert-file': TLS_FILES,
  platconfig: {
    file: 'test/unit/agent/certificate/serving-setup.test.ts',
    test: 'standalone mode (no --platconfig): no API request at all, self-signed serving pair',
  },
  'node-labels': {
    file: 'test/unit/agent/config/validate.test.ts',
    test: '--node-labels: reserved namespace rules with the reference message',
  },
  'platform-domain': {
    file: 'test/unit/agent/config/effective.test.ts',
    test: '--platform-domain changes the expected apiVersion',
  },
  config: {
    file: 'test/integration/agent/cli/print-config.test.ts',
    test: 'without --config the legacy defaults apply',
  },
  v: {
    file: 'test/unit/agent/cli/parser.test.ts',
    test: 'verbosity: -v 3, -v=3, -v3, --v=3, --v 3 and combined shorthands',
  },
  'enable-controller-attach-detach': {
    file: NODE_OPTS,
    test: '--enable-controller-attach-detach: the node carries volumes.<domain>/controller-managed-attach-detach "true"; false removes it',
  },
  'volume-stats-agg-period': {
    file: 'test/unit/agent/volume/volume-stats.test.ts',
    test: '--volume-stats-agg-period: emptyDir usage is measured at start and again every period, served in /stats/summary pods[].volume[]; 0 disables it',
  },
  'local-storage-capacity-isolation': {
    file: 'test/unit/agent/eviction/local-storage.test.ts',
    test: '--local-storage-capacity-isolation: pods over an emptyDir sizeLimit, the pod total or a container limit are evicted with the reference messages',
  },
  'experimental-allocatable-ignore-eviction': {
    file: 'test/unit/agent/node/node-identity.test.ts',
    test: '--experimental-allocatable-ignore-eviction: allocatable leaves the hard eviction thresholds out',
  },
  version: {
    file: 'test/unit/agent/cli/parser.test.ts',
    test: '--version, --version=raw, --version=vX.Y.Z, --seccomp-default',
  },
  'cpu-manager-policy': CPU_MANAGER_DOCKER,
  'cpu-manager-policy-options': {
    file: CM_UNIT,
    test: 'an allocation that cannot be met is UnexpectedAdmissionError; full-pcpus-only answers SMTAlignmentError',
  },
  'cpu-manager-reconcile-period': {
    file: CM_RECONCILE,
    test: 'reconcile every --cpu-manager-reconcile-period: the shared-pool container follows the pool, the CPUs of a gone pod come back',
  },
  'reserved-cpus': CPU_MANAGER_DOCKER,
  'reserved-memory': CM_MEMORY,
  'memory-manager-policy': CM_MEMORY,
  'topology-manager-policy': {
    file: CM_UNIT,
    test: 'topology policies: single-numa-node refuses what no one node holds (TopologyAffinityError); restricted aligns across two',
  },
  'topology-manager-scope': {
    file: CM_UNIT,
    test: 'topology scope pod: the containers of a pod together must fit the policy',
  },
  'topology-manager-policy-options': {
    file: CM_UNIT,
    test: 'prefer-closest-numa-nodes picks the nearer pair of NUMA nodes; max-allowable-numa-nodes bounds the host',
  },
  'cgroups-per-qos': {
    file: 'test/integration/agent/pods/cgroups-docker.test.ts',
    test: 'Docker: a Guaranteed pod in <root>/kubepods/pod<uid>, a BestEffort pod in <root>/kubepods/besteffort/pod<uid>, with the pod limits; the pod cgroup goes with the pod',
  },
  'cgroup-root': {
    file: 'test/integration/agent/cgroups/real-v1.test.ts',
    test: 'real cgroup v1: a process:// Guaranteed pod runs in <root>/platpods/pod<uid> with its limits, BestEffort in besteffort; gone with the pod',
  },
  'cgroup-driver': {
    file: 'test/unit/agent/cgroups/node-cgroups.test.ts',
    test: '--cgroup-driver=systemd: slices on the fake tree and the Docker CgroupParent is the leaf slice',
  },
  'runtime-cgroups': {
    file: 'test/unit/agent/cgroups/setup.test.ts',
    test: 'cgroup v2 without the memory and pids controllers, the systemd driver and --runtime-cgroups are each said at start',
  },
  'system-cgroups': NODE_CGROUPS,
  'nodeagent-cgroups': NODE_CGROUPS,
  'system-reserved-cgroup': ENFORCE_ALLOCATABLE,
  'plat-reserved-cgroup': ENFORCE_ALLOCATABLE,
  'enforce-node-allocatable': ENFORCE_ALLOCATABLE,
  'qos-reserved': {
    file: 'test/unit/agent/cgroups/node-cgroups.test.ts',
    test: '--qos-reserved memory=50%: the Burstable and BestEffort cgroups get the memory limits that keep half the requests of the classes above',
  },
  address: SERVER_ANSWERS,
  port: SERVER_ANSWERS,
  'anonymous-auth': SERVER_ANSWERS,
  'authentication-token-webhook': SERVER_ANSWERS,
  'authorization-mode': SERVER_ANSWERS,
  'healthz-port': SERVER_ANSWERS,
  'authentication-token-webhook-cache-ttl': AUTH_CACHES,
  'authorization-webhook-cache-authorized-ttl': AUTH_CACHES,
  'authorization-webhook-cache-unauthorized-ttl': AUTH_CACHES,
  'client-ca-file': {
    file: 'test/integration/agent/server/agent-auth-caches.test.ts',
    test: 'the client CA file is re-read when it is replaced under the running agent',
  },
  'bootstrap-platconfig': BOOTSTRAP,
  'cert-dir': BOOTSTRAP,
  'cloud-provider': NODE_REGISTERED,
  'provider-id': NODE_REGISTERED,
  'register-with-taints': NODE_REGISTERED,
  'register-node': NODE_SERVERS_OFF,
  'enable-server': NODE_SERVERS_OFF,
  'healthz-bind-address': NODE_SERVERS_OFF,
  'config-dir': {
    file: 'test/unit/agent/config/effective.test.ts',
    test: 'precedence: defaults < file < drop-ins (lexical) < flags; feature gates merge key by key',
  },
  'print-config': {
    file: 'test/integration/agent/cli/print-config.test.ts',
    test: 'precedence: defaults < file < drop-ins < flags (golden)',
  },
  'platform-profile': {
    file: 'test/integration/agent/cli/profile-selection.test.ts',
    test: '--platform-profile=platform with --kubeconfig: refused naming both',
  },
  help: {
    file: 'test/unit/agent/cli/help.test.ts',
    test: 'help has the usage line and every flag with its type, help text, default and markers',
  },
  'feature-gates': {
    file: 'test/unit/agent/config/feature-gate-effects.test.ts',
    test: '--feature-gates=PlatletCrashLoopBackOffMax=true gives crashLoopBackOff.maxContainerRestartPeriod its 5m0s default; without the gate it stays unset',
  },
  'container-log-max-files': LOG_ROTATION,
  'container-log-max-size': LOG_ROTATION,
  'container-runtime-endpoint': {
    file: ENDPOINTS,
    test: "--container-runtime-endpoint: process:// runs host processes, a docker.sock and tcp:// a Docker engine, a CRI runtime's socket CRI; anything else is refused naming the flag",
  },
  'image-service-endpoint': IMAGE_ENDPOINTS,
  'registry-qps': IMAGE_ENDPOINTS,
  'registry-burst': IMAGE_ENDPOINTS,
  'serialize-image-pulls': PARALLEL_PULLS,
  'enable-debugging-handlers': {
    file: SECURE_SERVER,
    test: 'debugging handlers disabled: 405 "Debug endpoints are disabled."; others still served',
  },
  'tls-min-version': {
    file: SECURE_SERVER,
    test: 'tls-min-version is enforced and the serving certificate rotates without a restart',
  },
  'tls-cipher-suites': {
    file: 'test/unit/agent/server/connections.test.ts',
    test: 'tls-cipher-suites limits TLS 1.2 suites (the spec names mapped to OpenSSL names)',
  },
  'read-only-port': {
    file: 'test/integration/agent/server/agent-eviction.test.ts',
    test: 'a met hard threshold: MemoryPressure, the pod evicted, events Evicted and EvictionThresholdMet',
  },
  'streaming-connection-idle-timeout': {
    file: 'test/integration/agent/server/streaming-spdy.test.ts',
    test: '--streaming-connection-idle-timeout (on the Clock): a session that moves bytes lives on; one idle for the timeout is closed and its command killed',
  },
  'event-qps': EVENT_LIMITS,
  'event-burst': EVENT_LIMITS,
  'eviction-hard': EVICTION_HARD,
  'eviction-minimum-reclaim': EVICTION_HARD,
  'eviction-pressure-transition-period': EVICTION_HARD,
  'eviction-soft': EVICTION_SOFT,
  'eviction-soft-grace-period': EVICTION_SOFT,
  'eviction-max-pod-grace-period': EVICTION_SOFT,
  'file-check-frequency': {
    file: 'test/unit/agent/source/check-frequency.test.ts',
    test: '--file-check-frequency: without notifications a new manifest is seen at the next check, not before',
  },
  'http-check-frequency': {
    file: 'test/unit/agent/source/check-frequency.test.ts',
    test: '--http-check-frequency: the manifest URL is fetched again each period',
  },
  'sync-frequency': {
    file: 'test/unit/agent/worker/sync-frequency.test.ts',
    test: '--sync-frequency: each pod is synced again every period (60 s here), not in between',
  },
  'pod-manifest-path': {
    file: 'test/unit/agent/source/file-source.test.ts',
    test: 'lists a directory: sorted, dotfiles and subdirectories ignored, invalid files skipped',
  },
  'manifest-url-header': {
    file: 'test/unit/agent/source/http-source.test.ts',
    test: 'the HTTP source: headers, Pod and PodList, errors keep pods, empty body removes them, throttled logs',
  },
  'image-gc-high-threshold': IMAGE_GC,
  'image-gc-low-threshold': IMAGE_GC,
  'minimum-image-ttl-duration': IMAGE_GC,
  'maximum-dead-containers': DEAD_CONTAINERS,
  'maximum-dead-containers-per-container': DEAD_CONTAINERS,
  'minimum-container-ttl-duration': DEAD_CONTAINERS,
  'plat-api-qps': API_LIMITS,
  'plat-api-burst': API_LIMITS,
  'plat-api-content-type': {
    file: REST,
    test: '--plat-api-content-type=application/json: JSON bodies and Accept',
  },
  'system-reserved': ALLOCATABLE,
  'plat-reserved': ALLOCATABLE,
  'max-pods': {
    file: ADMISSION,
    test: 'admission: the pod over capacity is rejected with OutOfpods',
  },
  'pods-per-core': {
    file: ADMISSION,
    test: 'pod capacity: max pods, capped by pods per core × CPUs when set',
  },
  'node-status-max-images': {
    file: 'test/unit/agent/node/node-registration.test.ts',
    test: 'status is sent on change or every 5 minutes; while the API server is down only the latest waits and the rest are counted',
  },
  'node-status-update-frequency': {
    file: 'test/unit/agent/node/lease-fallback.test.ts',
    test: 'lease API 404: warned once, the unchanged status sent every nodeStatusUpdateFrequency; lease served: every nodeStatusReportFrequency',
  },
  'root-dir': {
    file: 'test/integration/agent/cli/secrets-and-modes.test.ts',
    test: 'under umask 000: /configz and the log mask URL userinfo; state files 0600 in 0700 dirs, pod dirs 0750, logs 0640',
  },
  'rotate-certificates': {
    file: 'test/integration/agent/bootstrap/rotation.test.ts',
    test: 'client and serving certificates rotate before expiry; the client and the HTTPS server use the new ones',
  },
  'rotate-server-certificates': {
    file: 'test/unit/agent/certificate/serving-setup.test.ts',
    test: 'rotated serving certificate: handshakes fail until it exists, then present it; SANs from host and IPs',
  },
  'logging-format': {
    file: LOGGER,
    test: 'text format: severity letter, UTC time, component, message, key=value pairs',
  },
  'log-text-split-stream': {
    file: LOGGER,
    test: 'split stream: info to stdout, warnings and errors to stderr; flush on close',
  },
  'log-text-info-buffer-size': {
    file: LOGGER,
    test: 'logger options come from the logging block of the configuration',
  },
  vmodule: { file: LOGGER, test: 'vmodule raises the verbosity of matching components only' },
  'hairpin-mode': {
    file: 'test/integration/agent/pods/hairpin-docker.test.ts',
    test: '--hairpin-mode on Docker: hairpin-veth and promiscuous-bridge turn hairpin on for the sandbox veth; none leaves it off',
  },
  'kernel-memcg-notification': {
    file: 'test/unit/agent/eviction/memcg-notification.test.ts',
    test: '--kernel-memcg-notification on cgroup v2: a memory.events change evicts at once, not at the next 10 s observation',
  },
  'pod-cidr': {
    file: 'test/integration/agent/pods/pod-cidr.test.ts',
    test: '--pod-cidr (standalone): "Updating Pod CIDR", and process:// containers get it in $NODEAGENT_POD_CIDR',
  },
  'experimental-mounter-path': {
    file: 'test/unit/agent/volume/mounts.test.ts',
    test: '--experimental-mounter-path: the tmpfs of an emptyDir medium Memory, secret, downwardAPI or projected volume is mounted by that binary with size=<bytes>',
  },
  'volume-plugin-dir': {
    file: 'test/unit/agent/volume/flexvolume.test.ts',
    test: '--volume-plugin-dir: a flexVolume pod volume calls <dir>/<vendor>~<driver>/<driver> init, mount <dir> <json options> once, and unmount when the pod goes',
  },
  'make-iptables-util-chains': {
    file: 'test/integration/agent/network/util-chains-netns.test.ts',
    test: '--make-iptables-util-chains: the reference chains and rules for IPv4 and IPv6, once each however often synced, made again after a flush',
  },
};

/** Options with no effect by design on any host, and why. */
const NO_EFFECT: Readonly<Record<string, string>> = {
  'pod-infra-container-image':
    'the reference 1.32 discards its value too (deprecated; kubeadm still writes it); nodeagent runs no sandbox image. Its deprecation notice says it is ignored: test/integration/agent/cli/kubeadm-dropin.test.ts',
};

const GC_TEST = 'test/unit/agent/gc/collector.test.ts';
const FILE_EFFECTS_TEST = 'test/unit/agent/config/file-field-effects.test.ts';
const SHUTDOWN = {
  file: 'test/integration/agent/node/graceful-shutdown.test.ts',
  test: 'graceful node shutdown: delay lock from logind, drop-in raising InhibitDelayMaxSec, pods killed by priority (critical last) with the reference status, NotReady, lock released',
};

const LOG_MONITOR: Effect = {
  file: GC_TEST,
  test: 'containerLogMonitorInterval sets how often logs are checked; containerLogMaxWorkers how many rotate at once',
};

/** Configuration-file fields without a flag, with a test that shows their effect. */
const FIELD_EFFECTS: Readonly<Record<string, Effect>> = {
  configMapAndSecretChangeDetectionStrategy: {
    file: 'test/unit/agent/objects/managers.test.ts',
    test: 'configMapAndSecretChangeDetectionStrategy: Watch watches each registered object by metadata.name, Cache reads it once per TTL, Get reads it every time',
  },
  imageMaximumGCAge: {
    file: GC_TEST,
    test: 'imageMaximumGCAge: an image unused for longer is removed whatever the disk usage; one in use is kept',
  },
  containerLogMonitorInterval: LOG_MONITOR,
  containerLogMaxWorkers: LOG_MONITOR,
  maxParallelImagePulls: PARALLEL_PULLS,
  crashLoopBackOff: {
    file: FILE_EFFECTS_TEST,
    test: 'crashLoopBackOff.maxContainerRestartPeriod caps the container restart back-off (10 s doubling, 300 s by default)',
  },
  enableProfilingHandler: PROFILING,
  enableDebugFlagsHandler: {
    file: 'test/unit/agent/server/debug-flags.test.ts',
    test: 'enableDebugFlagsHandler: PUT /debug/flags/v changes the verbosity at run time; a bad value is 400, another method 406, the field false 405',
  },
  enableSystemLogQuery: {
    file: 'test/unit/agent/server/node-log-query.test.ts',
    test: 'enableSystemLogQuery: /logs/?query= runs journalctl with the reference arguments, falls back to /var/log heuristics, serves one file; bad queries get 400/406 in the reference words',
  },
  enableSystemLogHandler: {
    file: 'test/unit/agent/server/secure-server.test.ts',
    test: 'enableSystemLogHandler false: /logs/ is not served (404), the other debugging handlers are',
  },
  memorySwap: {
    file: `${OPTS_UNIT}/swap.test.ts`,
    test: 'memorySwap NoSwap (and ""): Docker MemorySwap equals Memory, so a container gets no swap',
  },
  podLogsDir: {
    file: 'test/integration/agent/pods/pod-logs-dir.test.ts',
    test: 'podLogsDir: <podLogsDir>/<ns>_<name>_<uid>/<container>/<restartCount>.log links to the process:// log, one per restart; removed with the pod',
  },
  shutdownGracePeriod: SHUTDOWN,
  shutdownGracePeriodCriticalPods: SHUTDOWN,
  shutdownGracePeriodByPodPriority: {
    file: 'test/integration/agent/node/graceful-shutdown.test.ts',
    test: 'graceful node shutdown: a cancelled shutdown (PrepareForShutdown false) takes the lock again; logind already allowing the period is left alone',
  },
  tracing: {
    file: 'test/unit/agent/server/tracing.test.ts',
    test: 'tracing: every request of the secure server is an OTLP span continuing the caller traceparent; none without a configuration',
  },
  singleProcessOOMKill: {
    file: HOST_CHECKS,
    test: 'singleProcessOOMKill false is refused on cgroup v1 with the reference message; unset or true starts',
  },
};

/**
 * Whether a test file has a test with exactly this title, in any quoting, on the call's line or
 * (as the formatter wraps a long one) the next.
 */
function hasTestTitled(text: string, title: string): boolean {
  const quoted = [JSON.stringify(title), `'${title.replaceAll("'", "\\'")}'`, `\`${title}\``];
  const calls = text.split(/\btest\(\s*/).slice(1);
  return calls.some((rest) => quoted.some((q) => rest.startsWith(q)));
}

test('every configuration-file field without a flag has an effect test or a stated reason, not both', () => {
  for (const f of Object.keys(FILE_ONLY_FIELDS)) {
    const n = Number(Object.hasOwn(FIELD_EFFECTS, f)) + Number(Object.hasOwn(INERT_FIELDS, f));
    assert.equal(
      n,
      1,
      `${f}: ${n === 0 ? 'no effect test and no reason' : 'both an effect test and a reason'}`,
    );
  }
  for (const f of [...Object.keys(FIELD_EFFECTS), ...Object.keys(INERT_FIELDS)])
    assert.ok(Object.hasOwn(FILE_ONLY_FIELDS, f), `${f} is not a file-only field`);
  for (const [name, e] of Object.entries(FIELD_EFFECTS)) {
    assert.ok(existsSync(e.file), `${name}: ${e.file} does not exist`);
    assert.ok(
      hasTestTitled(readFileSync(e.file, 'utf8'), e.test),
      `${name}: no test titled ${JSON.stringify(e.test)} in ${e.file}`,
    );
  }
  console.log(
    `# file-only fields with a demonstrated effect: ${Object.keys(FIELD_EFFECTS).length}/${Object.keys(FILE_ONLY_FIELDS).length}; with a stated reason: ${Object.keys(INERT_FIELDS).length}`,
  );
});

test('inert file-only fields: set ones are warned about once each, naming the field and the reason; the rest in one line', () => {
  const config = {
    ...defaultConfiguration('file'),
    showHiddenMetricsForVersion: '1.31',
    memoryThrottlingFactor: 0.5,
  };
  assert.deepEqual(inertFieldsSet(config).sort(), [
    'memoryThrottlingFactor',
    'showHiddenMetricsForVersion',
  ]);
  assert.deepEqual(inertFieldsSet(defaultConfiguration('flags')), []);
  const log = recordingLogger();
  logInertFields(config, log);
  const warns = log.lines.filter((e) => e.level === 'warn');
  assert.equal(warns.length, 2);
  assert.ok(
    warns.some((w) =>
      w.msg.startsWith(
        'showHiddenMetricsForVersion is set but cannot take effect: no metric of nodeagent is hidden',
      ),
    ),
  );
  assert.equal(log.lines.filter((e) => e.level === 'info').length, 1);
});

test('every option of the flag table has exactly one entry: an effect test, a reason, or a named known gap', () => {
  const names = FLAGS.map((f) => f.name);
  const lists: [string, readonly string[]][] = [
    ['EFFECTS', Object.keys(EFFECTS)],
    ['NO_EFFECT', Object.keys(NO_EFFECT)],
  ];
  for (const n of names) {
    const where = lists.filter(([, l]) => l.includes(n)).map(([k]) => k);
    assert.equal(
      where.length,
      1,
      `--${n}: ${where.length === 0 ? 'no entry: add the test that shows its effect to EFFECTS' : `listed in ${where.join(' and ')}`}`,
    );
  }
  for (const [k, l] of lists)
    for (const n of l)
      assert.ok(names.includes(n), `${k} names --${n}, which is not in the flag table`);
});

test('each effect entry names a test that exists, by file and exact title', () => {
  for (const [name, e] of Object.entries(EFFECTS)) {
    assert.ok(existsSync(e.file), `--${name}: ${e.file} does not exist`);
    assert.ok(
      hasTestTitled(readFileSync(e.file, 'utf8'), e.test),
      `--${name}: no test titled ${JSON.stringify(e.test)} in ${e.file}`,
    );
  }
});

test('figure: options with a demonstrated effect / all options', () => {
  const shown = Object.keys(EFFECTS).length + Object.keys(NO_EFFECT).length;
  // printed as a figure for reports; the first test guarantees the lists cover the table
  console.log(`# options with a demonstrated effect or reason: ${shown}/${FLAGS.length}`);
  assert.equal(shown, FLAGS.length);
});
