// Every option of the flag table maps to a test that shows its effect, or an explicit reason why it
// has none on this host, or sits in one of the two named lists the next session works through.
// A new option without an entry fails this test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { INERT_FIELDS, INERT_OPTIONS, inertFieldsSet, inertOptionsSet, logInertFields } from '../../../../src/agent/cli/inert-options.js';
import { FILE_ONLY_FIELDS } from '../../../../src/agent/config/file-only-fields.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { defaultConfiguration } from '../../../../src/agent/config/defaults.js';
import { buildNodeAgentFlags } from '../../../../src/agent/config/flags-type.js';

interface Effect {
  /** Source path of the test file, from the repository root. */
  file: string;
  /** The test's title, exactly. */
  test: string;
}

const OPTS_UNIT = 'test/unit/agent/runtime/settings';
const DOCKER_OPTS = { file: 'test/integration/agent/pods/options-docker.test.ts', test: 'Docker containers carry the reference CPU, pids, oom, seccomp, sysctl and DNS settings' };
const NODE_OPTS = 'test/integration/agent/node/node-options-apiserver.test.ts';
const HOST_CHECKS = 'test/integration/agent/cli/host-checks.test.ts';
const CREDENTIALS = { file: 'test/integration/agent/pods/credential-provider-docker.test.ts', test: 'a private-registry pull through a credential provider plugin; without it ErrImagePull with the registry refusal' };

const CM_UNIT = 'test/unit/agent/cm/managers.test.ts';
const CM_RECONCILE = 'test/unit/agent/cm/reconcile.test.ts';
const CPU_MANAGER_DOCKER = { file: 'test/integration/agent/pods/cpu-manager-docker.test.ts', test: 'static CPU manager on Docker: a Guaranteed pod gets an exclusive CPU (CpusetCpus), a Burstable one the shared pool; cpu_manager_state lists it' };

/** Options with a test that shows their effect. */
const EFFECTS: Readonly<Record<string, Effect>> = {
  'allowed-unsafe-sysctls': { file: `${OPTS_UNIT}/sysctls-seccomp.test.ts`, test: '--allowed-unsafe-sysctls patterns admit more; net sysctls are refused on the host network' },
  'cluster-dns': { file: `${OPTS_UNIT}/dns.test.ts`, test: 'ClusterFirst: the cluster DNS only, the cluster search path then the host search, ndots:5' },
  'cluster-domain': { file: `${OPTS_UNIT}/dns.test.ts`, test: 'ClusterFirst: the cluster DNS only, the cluster search path then the host search, ndots:5' },
  'resolv-conf': { file: `${OPTS_UNIT}/dns.test.ts`, test: '--resolv-conf="" gives a loopback resolver and search "."' },
  'cpu-cfs-quota': { file: `${OPTS_UNIT}/cpu-qos.test.ts`, test: '--cpu-cfs-quota-period sets the period; --cpu-cfs-quota=false sets no quota at all' },
  'cpu-cfs-quota-period': { file: `${OPTS_UNIT}/cpu-qos.test.ts`, test: '--cpu-cfs-quota-period sets the period; --cpu-cfs-quota=false sets no quota at all' },
  'pod-max-pids': DOCKER_OPTS,
  'image-credential-provider-config': CREDENTIALS,
  'contention-profiling': { file: 'test/unit/agent/server/profiling.test.ts', test: 'enableProfilingHandler serves /debug/pprof/ (CPU profile, heap); --contention-profiling adds the event loop delay' },
  'runtime-request-timeout': { file: 'test/unit/agent/runtime/request-timeout.test.ts', test: '--runtime-request-timeout bounds process:// calls: the timeout, the grace period on top for stops, the exec timeout on top' },
  'image-credential-provider-bin-dir': CREDENTIALS,
  'seccomp-default': { file: `${OPTS_UNIT}/sysctls-seccomp.test.ts`, test: 'seccomp: Unconfined unless --seccomp-default or the pod asks for RuntimeDefault' },
  'oom-score-adj': { file: 'test/unit/agent/cli/kernel-defaults-oom.test.ts', test: '--oom-score-adj is written to the agent itself; when not permitted it says so naming the option' },
  'protect-kernel-defaults': { file: 'test/unit/agent/cli/kernel-defaults-oom.test.ts', test: '--protect-kernel-defaults refuses the start naming every setting that differs, in the reference words' },
  'exit-on-lock-contention': { file: HOST_CHECKS, test: '--lock-file with --exit-on-lock-contention: the holder is told when another process wants the lock' },
  'lock-file': { file: HOST_CHECKS, test: '--lock-file with --exit-on-lock-contention: the holder is told when another process wants the lock' },
  'fail-cgroupv1': { file: HOST_CHECKS, test: 'cgroup v1 is refused naming --fail-cgroupv1, unless it is false' },
  'fail-swap-on': { file: HOST_CHECKS, test: 'swap on is refused naming --fail-swap-on, unless it is false' },
  'max-open-files': { file: HOST_CHECKS, test: '--max-open-files raises the soft limit through prlimit, or warns naming the flag' },
  'hostname-override': { file: 'test/unit/agent/node/node-identity.test.ts', test: 'node name: --hostname-override or the host name, lower-cased' },
  'node-ip': { file: 'test/unit/agent/node/node-identity.test.ts', test: 'addresses: default-route interface, --node-ip, dual-stack and :: preferring IPv6' },
  'log-flush-frequency': { file: 'test/unit/common/log/logger.test.ts', test: 'the flush timer flushes buffered output every --log-flush-frequency' },
  'manifest-url': { file: 'test/e2e/static-pods-hostile.test.ts', test: 'hostile manifests (files and --manifest-url) are skipped with the limit named; the good pod keeps running' },
  runonce: { file: 'test/e2e/static-pods-runonce.test.ts', test: '--runonce: all pods (file and URL) running → exit 0 with a summary' },
  'tls-private-key-file': { file: 'test/unit/agent/certificate/serving-setup.test.ts', test: '--tls-cert-file/--tls-private-key-file are served and reloaded when they change' },
  'tls-cert-file': { file: 'test/unit/agent/certificate/serving-setup.test.ts', test: '--tls-cert-file/--tls-private-key-file are served and reloaded when they change' },
  platconfig: { file: 'test/unit/agent/certificate/serving-setup.test.ts', test: 'standalone mode (no --platconfig): no API request at all, self-signed serving pair' },
  'node-labels': { file: 'test/unit/agent/config/validate.test.ts', test: '--node-labels: reserved namespace rules with the reference message' },
  'platform-domain': { file: 'test/unit/agent/config/effective.test.ts', test: '--platform-domain changes the expected apiVersion' },
  config: { file: 'test/integration/agent/cli/print-config.test.ts', test: 'without --config the legacy defaults apply' },
  v: { file: 'test/unit/agent/cli/parser.test.ts', test: 'verbosity: -v 3, -v=3, -v3, --v=3, --v 3 and combined shorthands' },
  'enable-controller-attach-detach': { file: NODE_OPTS, test: '--enable-controller-attach-detach: the node carries volumes.<domain>/controller-managed-attach-detach "true"; false removes it' },
  'volume-stats-agg-period': { file: 'test/unit/agent/volume/volume-stats.test.ts', test: '--volume-stats-agg-period: emptyDir usage is measured at start and again every period, served in /stats/summary pods[].volume[]; 0 disables it' },
  'local-storage-capacity-isolation': { file: 'test/unit/agent/eviction/local-storage.test.ts', test: '--local-storage-capacity-isolation: pods over an emptyDir sizeLimit, the pod total or a container limit are evicted with the reference messages' },
  'experimental-allocatable-ignore-eviction': { file: 'test/unit/agent/node/node-identity.test.ts', test: '--experimental-allocatable-ignore-eviction: allocatable leaves the hard eviction thresholds out' },
  version: { file: 'test/unit/agent/cli/parser.test.ts', test: '--version, --version=raw, --version=vX.Y.Z, --seccomp-default' },
  'cpu-manager-policy': CPU_MANAGER_DOCKER,
  'cpu-manager-policy-options': { file: CM_UNIT, test: 'an allocation that cannot be met is UnexpectedAdmissionError; full-pcpus-only answers SMTAlignmentError' },
  'cpu-manager-reconcile-period': { file: CM_RECONCILE, test: 'reconcile every --cpu-manager-reconcile-period: the shared-pool container follows the pool, the CPUs of a gone pod come back' },
  'reserved-cpus': CPU_MANAGER_DOCKER,
  'reserved-memory': { file: CM_UNIT, test: 'memory manager Static: memory reserved per NUMA node, cpuset.mems, memory_manager_state; the policy refuses what no node holds' },
  'memory-manager-policy': { file: CM_UNIT, test: 'memory manager Static: memory reserved per NUMA node, cpuset.mems, memory_manager_state; the policy refuses what no node holds' },
  'topology-manager-policy': { file: CM_UNIT, test: 'topology policies: single-numa-node refuses what no one node holds (TopologyAffinityError); restricted aligns across two' },
  'topology-manager-scope': { file: CM_UNIT, test: 'topology scope pod: the containers of a pod together must fit the policy' },
  'topology-manager-policy-options': { file: CM_UNIT, test: 'prefer-closest-numa-nodes picks the nearer pair of NUMA nodes; max-allowable-numa-nodes bounds the host' },
  'cgroups-per-qos': { file: 'test/integration/agent/pods/cgroups-docker.test.ts', test: 'Docker: a Guaranteed pod in <root>/kubepods/pod<uid>, a BestEffort pod in <root>/kubepods/besteffort/pod<uid>, with the pod limits; the pod cgroup goes with the pod' },
  'cgroup-root': { file: 'test/integration/agent/cgroups/real-v1.test.ts', test: 'real cgroup v1: a process:// Guaranteed pod runs in <root>/platpods/pod<uid> with its limits, BestEffort in besteffort; gone with the pod' },
  'cgroup-driver': { file: 'test/unit/agent/cgroups/node-cgroups.test.ts', test: '--cgroup-driver=systemd: slices on the fake tree and the Docker CgroupParent is the leaf slice' },
  'runtime-cgroups': { file: 'test/unit/agent/cgroups/setup.test.ts', test: 'cgroup v2 without the memory and pids controllers, the systemd driver and --runtime-cgroups are each said at start' },
  'system-cgroups': { file: 'test/unit/agent/cgroups/node-cgroups.test.ts', test: '--nodeagent-cgroups moves the agent into its cgroup; --system-cgroups moves the non-kernel processes of the root cgroup, never pid 1; "/" is refused' },
  'nodeagent-cgroups': { file: 'test/unit/agent/cgroups/node-cgroups.test.ts', test: '--nodeagent-cgroups moves the agent into its cgroup; --system-cgroups moves the non-kernel processes of the root cgroup, never pid 1; "/" is refused' },
  'system-reserved-cgroup': { file: 'test/unit/agent/cgroups/node-cgroups.test.ts', test: '--enforce-node-allocatable: pods off leaves kubepods at capacity; system-reserved and plat-reserved limit their existing cgroups, compressible only CPU' },
  'plat-reserved-cgroup': { file: 'test/unit/agent/cgroups/node-cgroups.test.ts', test: '--enforce-node-allocatable: pods off leaves kubepods at capacity; system-reserved and plat-reserved limit their existing cgroups, compressible only CPU' },
  'enforce-node-allocatable': { file: 'test/unit/agent/cgroups/node-cgroups.test.ts', test: '--enforce-node-allocatable: pods off leaves kubepods at capacity; system-reserved and plat-reserved limit their existing cgroups, compressible only CPU' },
  'qos-reserved': { file: 'test/unit/agent/cgroups/node-cgroups.test.ts', test: '--qos-reserved memory=50%: the Burstable and BestEffort cgroups get the memory limits that keep half the requests of the classes above' },
};

/** Options with no effect by design on any host, and why. */
const NO_EFFECT: Readonly<Record<string, string>> = {
  'pod-infra-container-image': 'the reference 1.32 discards its value too (deprecated; kubeadm still writes it); nodeagent runs no sandbox image. Its deprecation notice says it is ignored: test/integration/agent/cli/kubeadm-dropin.test.ts',
};

/**
 * KNOWN GAPS: options issue 16 lists as inert that still change nothing (items 1, 4, 6 of the
 * issue), the agent's own list (src/agent/cli/inert-options.ts), which it names at start. Each
 * must get an entry in EFFECTS (or NO_EFFECT) and leave that list.
 */
const KNOWN_GAPS_INERT: readonly string[] = INERT_OPTIONS;

/**
 * KNOWN GAPS: options believed to take effect whose proving test is not yet named here. Each must
 * move to EFFECTS with the test that shows it (or to KNOWN_GAPS_INERT if none exists).
 */
const KNOWN_GAPS_UNMAPPED: readonly string[] = [
  'address', 'anonymous-auth', 'authentication-token-webhook', 'authentication-token-webhook-cache-ttl', 'authorization-mode',
  'authorization-webhook-cache-authorized-ttl', 'authorization-webhook-cache-unauthorized-ttl', 'bootstrap-platconfig', 'cert-dir',
  'client-ca-file', 'cloud-provider', 'config-dir', 'container-log-max-files', 'container-log-max-size', 'container-runtime-endpoint',
  'enable-debugging-handlers', 'enable-server', 'event-burst', 'event-qps', 'eviction-hard', 'eviction-max-pod-grace-period',
  'eviction-minimum-reclaim', 'eviction-pressure-transition-period', 'eviction-soft', 'eviction-soft-grace-period', 'feature-gates',
  'file-check-frequency', 'healthz-bind-address', 'healthz-port', 'help', 'http-check-frequency', 'image-gc-high-threshold',
  'image-gc-low-threshold', 'image-service-endpoint', 'plat-api-burst', 'plat-api-content-type', 'plat-api-qps', 'plat-reserved',
  'log-text-info-buffer-size', 'log-text-split-stream', 'logging-format', 'manifest-url-header', 'max-pods', 'maximum-dead-containers',
  'maximum-dead-containers-per-container', 'minimum-container-ttl-duration', 'minimum-image-ttl-duration', 'node-status-max-images',
  'node-status-update-frequency', 'pod-manifest-path', 'pods-per-core', 'port', 'provider-id', 'read-only-port', 'register-node',
  'register-with-taints', 'registry-burst', 'registry-qps', 'root-dir', 'rotate-certificates', 'rotate-server-certificates',
  'serialize-image-pulls', 'streaming-connection-idle-timeout', 'sync-frequency', 'system-reserved',
  'tls-cipher-suites', 'tls-min-version', 'vmodule', 'print-config', 'platform-profile',
];

const GC_TEST = 'test/unit/agent/gc/collector.test.ts';
const FILE_EFFECTS_TEST = 'test/unit/agent/config/file-field-effects.test.ts';

/** Configuration-file fields without a flag (issue 16 item 7) with a test that shows their effect. */
const FIELD_EFFECTS: Readonly<Record<string, Effect>> = {
  imageMaximumGCAge: { file: GC_TEST, test: 'imageMaximumGCAge: an image unused for longer is removed whatever the disk usage; one in use is kept' },
  containerLogMonitorInterval: { file: GC_TEST, test: 'containerLogMonitorInterval sets how often logs are checked; containerLogMaxWorkers how many rotate at once' },
  containerLogMaxWorkers: { file: GC_TEST, test: 'containerLogMonitorInterval sets how often logs are checked; containerLogMaxWorkers how many rotate at once' },
  maxParallelImagePulls: { file: 'test/unit/agent/runtime/pull-queue.test.ts', test: 'maxParallelImagePulls: at most that many pulls at once with serializeImagePulls false; one when serialized' },
  crashLoopBackOff: { file: FILE_EFFECTS_TEST, test: 'crashLoopBackOff.maxContainerRestartPeriod caps the container restart back-off (10 s doubling, 300 s by default)' },
  enableProfilingHandler: { file: 'test/unit/agent/server/profiling.test.ts', test: 'enableProfilingHandler serves /debug/pprof/ (CPU profile, heap); --contention-profiling adds the event loop delay' },
  enableSystemLogHandler: { file: 'test/unit/agent/server/secure-server.test.ts', test: 'enableSystemLogHandler false: /logs/ is not served (404), the other debugging handlers are' },
  memorySwap: { file: `${OPTS_UNIT}/swap.test.ts`, test: 'memorySwap NoSwap (and ""): Docker MemorySwap equals Memory, so a container gets no swap' },
  singleProcessOOMKill: { file: HOST_CHECKS, test: 'singleProcessOOMKill false is refused on cgroup v1 with the reference message; unset or true starts' },
};

test('every configuration-file field without a flag has an effect test or a stated reason, not both', () => {
  for (const f of Object.keys(FILE_ONLY_FIELDS)) {
    const n = Number(Object.hasOwn(FIELD_EFFECTS, f)) + Number(Object.hasOwn(INERT_FIELDS, f));
    assert.equal(n, 1, `${f}: ${n === 0 ? 'no effect test and no reason' : 'both an effect test and a reason'}`);
  }
  for (const f of [...Object.keys(FIELD_EFFECTS), ...Object.keys(INERT_FIELDS)]) assert.ok(Object.hasOwn(FILE_ONLY_FIELDS, f), `${f} is not a file-only field`);
  for (const [name, e] of Object.entries(FIELD_EFFECTS)) {
    assert.ok(existsSync(e.file), `${name}: ${e.file} does not exist`);
    assert.ok(readFileSync(e.file, 'utf8').includes(`test(${JSON.stringify(e.test)}`) || readFileSync(e.file, 'utf8').includes(`test('${e.test}'`), `${name}: no test titled ${JSON.stringify(e.test)} in ${e.file}`);
  }
  console.log(`# file-only fields with a demonstrated effect: ${Object.keys(FIELD_EFFECTS).length}/${Object.keys(FILE_ONLY_FIELDS).length}; with a stated reason: ${Object.keys(INERT_FIELDS).length}`);
});

test('inert file-only fields: set ones are warned about once each, naming the field and the reason; the rest in one line', () => {
  const config = { ...defaultConfiguration('file'), shutdownGracePeriod: '30s', tracing: { endpoint: '127.0.0.1:4317' } };
  assert.deepEqual(inertFieldsSet(config).sort(), ['shutdownGracePeriod', 'tracing']);
  assert.deepEqual(inertFieldsSet(defaultConfiguration('flags')), []);
  const log = recordingLogger();
  logInertFields(config, log);
  const warns = log.lines.filter((e) => e.level === 'warn');
  assert.equal(warns.length, 2);
  assert.ok(warns.some((w) => w.msg.startsWith('shutdownGracePeriod is set but cannot take effect: graceful node shutdown needs a systemd-logind inhibitor lock')));
  assert.equal(log.lines.filter((e) => e.level === 'info').length, 1);
});

test('every option of the flag table has exactly one entry: an effect test, a reason, or a named known gap', () => {
  const names = FLAGS.map((f) => f.name);
  const lists: [string, readonly string[]][] = [
    ['EFFECTS', Object.keys(EFFECTS)],
    ['NO_EFFECT', Object.keys(NO_EFFECT)],
    ['KNOWN_GAPS_INERT', KNOWN_GAPS_INERT],
    ['KNOWN_GAPS_UNMAPPED', KNOWN_GAPS_UNMAPPED],
  ];
  for (const n of names) {
    const where = lists.filter(([, l]) => l.includes(n)).map(([k]) => k);
    assert.equal(where.length, 1, `--${n}: ${where.length === 0 ? 'no entry: add the test that shows its effect to EFFECTS' : `listed in ${where.join(' and ')}`}`);
  }
  for (const [k, l] of lists) for (const n of l) assert.ok(names.includes(n), `${k} names --${n}, which is not in the flag table`);
});

test('each effect entry names a test that exists, by file and exact title', () => {
  for (const [name, e] of Object.entries(EFFECTS)) {
    assert.ok(existsSync(e.file), `--${name}: ${e.file} does not exist`);
    const text = readFileSync(e.file, 'utf8');
    assert.ok(text.includes(`test(${JSON.stringify(e.test)}`) || text.includes(`test('${e.test}'`) || text.includes(`test(\`${e.test}\``), `--${name}: no test titled ${JSON.stringify(e.test)} in ${e.file}`);
  }
});

test('figure: options with a demonstrated effect / all options', () => {
  const shown = Object.keys(EFFECTS).length + Object.keys(NO_EFFECT).length;
  // printed for the issue's figure; the first test guarantees the lists cover the table
  console.log(`# options with a demonstrated effect or reason: ${shown}/${FLAGS.length}; known gaps: ${KNOWN_GAPS_INERT.length} inert, ${KNOWN_GAPS_UNMAPPED.length} unmapped`);
  assert.equal(shown + KNOWN_GAPS_INERT.length + KNOWN_GAPS_UNMAPPED.length, FLAGS.length);
});

test('the inert options set away from their defaults are the ones the agent warns about at start', () => {
  const config = { ...defaultConfiguration('flags'), cpuManagerPolicy: 'static', hairpinMode: 'hairpin-veth' };
  const flags = { ...buildNodeAgentFlags(FLAGS, new Map()), experimentalMounterPath: '/sbin/mount' };
  assert.deepEqual(inertOptionsSet(config, flags).sort(), ['experimental-mounter-path', 'hairpin-mode'], '--cpu-manager-policy takes effect (src/agent/cm): not inert');
  assert.deepEqual(inertOptionsSet(defaultConfiguration('file'), buildNodeAgentFlags(FLAGS, new Map())), []);
});
