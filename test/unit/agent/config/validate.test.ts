import { namesFor } from '../../../../src/common/names.js';
import { test } from 'node:test';
import fc from 'fast-check';
import assert from 'node:assert/strict';
import { FLAGS } from '../../../../src/agent/cli/flags.js';
import { defaultConfiguration } from '../../../../src/agent/config/defaults.js';
import { flagLookup } from '../../../../src/agent/config/effective.js';
import type { NodeAgentConfiguration } from '../../../../src/agent/config/schema.js';
import { validateConfiguration } from '../../../../src/agent/config/validate.js';
import {
  buildNodeAgentFlags,
  type NodeAgentFlags,
} from '../../../../src/agent/config/flags-type.js';
import { validateFlagOnly } from '../../../../src/agent/config/validate-flags.js';

const flagFor = flagLookup(FLAGS);

function problemsOf(mutate: (c: NodeAgentConfiguration) => void): string[] {
  const c = defaultConfiguration('file');
  mutate(c);
  return validateConfiguration(c, { flagFor });
}

test('the defaults of both modes are valid', () => {
  assert.deepEqual(validateConfiguration(defaultConfiguration('file'), { flagFor }), []);
  assert.deepEqual(validateConfiguration(defaultConfiguration('flags'), { flagFor }), []);
});

type Case = { name: string; set: (c: NodeAgentConfiguration) => void; want: string | RegExp };

const cases: Case[] = [
  // ranges
  {
    name: 'image GC low below high',
    set: (c) => {
      c.imageGCLowThresholdPercent = 90;
    },
    want: 'invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 90 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 85',
  },
  {
    name: 'image GC low equal to high',
    set: (c) => {
      c.imageGCLowThresholdPercent = 85;
    },
    want: /imageGCLowThresholdPercent \(--image-gc-low-threshold\) 85 must be less than/,
  },
  {
    name: 'image GC high above 100',
    set: (c) => {
      c.imageGCHighThresholdPercent = 150;
    },
    want: 'invalid configuration: imageGCHighThresholdPercent (--image-gc-high-threshold) 150 must be between 0 and 100, inclusive',
  },
  {
    name: 'image GC low below 0',
    set: (c) => {
      c.imageGCLowThresholdPercent = -1;
    },
    want: 'invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) -1 must be between 0 and 100, inclusive',
  },
  {
    name: 'event QPS negative',
    set: (c) => {
      c.eventRecordQPS = -1;
    },
    want: 'invalid configuration: eventRecordQPS (--event-qps) -1 must not be a negative number',
  },
  {
    name: 'event burst negative',
    set: (c) => {
      c.eventBurst = -1;
    },
    want: 'invalid configuration: eventBurst (--event-burst) -1 must not be a negative number',
  },
  {
    name: 'API QPS negative',
    set: (c) => {
      c.platAPIQPS = -5;
    },
    want: 'invalid configuration: platAPIQPS (--plat-api-qps) -5 must not be a negative number',
  },
  {
    name: 'API burst negative',
    set: (c) => {
      c.platAPIBurst = -5;
    },
    want: 'invalid configuration: platAPIBurst (--plat-api-burst) -5 must not be a negative number',
  },
  {
    name: 'registry QPS negative',
    set: (c) => {
      c.registryPullQPS = -1;
    },
    want: /registryPullQPS \(--registry-qps\) -1 must not be a negative number/,
  },
  {
    name: 'registry burst negative',
    set: (c) => {
      c.registryBurst = -1;
    },
    want: /registryBurst \(--registry-burst\) -1 must not be a negative number/,
  },
  {
    name: 'OOM score adj range',
    set: (c) => {
      c.oomScoreAdj = -1001;
    },
    want: 'invalid configuration: oomScoreAdj (--oom-score-adj) -1001 must be between -1000 and 1000, inclusive',
  },
  {
    name: 'port range',
    set: (c) => {
      c.port = 70000;
    },
    want: 'invalid configuration: port (--port) 70000 must be between 1 and 65535, inclusive',
  },
  {
    name: 'port 0 with the server on',
    set: (c) => {
      c.port = 0;
    },
    want: /port \(--port\) 0 must be between 1 and 65535/,
  },
  {
    name: 'read-only port range',
    set: (c) => {
      c.readOnlyPort = -1;
    },
    want: 'invalid configuration: readOnlyPort (--read-only-port) -1 must be between 0 and 65535, inclusive',
  },
  {
    name: 'healthz port range',
    set: (c) => {
      c.healthzPort = 65536;
    },
    want: 'invalid configuration: healthzPort (--healthz-port) 65536 must be between 0 and 65535, inclusive',
  },
  {
    name: 'max pods negative',
    set: (c) => {
      c.maxPods = -1;
    },
    want: 'invalid configuration: maxPods (--max-pods) -1 must not be a negative number',
  },
  {
    name: 'pods per core negative',
    set: (c) => {
      c.podsPerCore = -1;
    },
    want: 'invalid configuration: podsPerCore (--pods-per-core) -1 must not be a negative number',
  },
  {
    name: 'node status max images below -1',
    set: (c) => {
      c.nodeStatusMaxImages = -2;
    },
    want: 'invalid configuration: nodeStatusMaxImages (--node-status-max-images) -2 must be -1 or greater',
  },
  {
    name: 'container log max files at least 2',
    set: (c) => {
      c.containerLogMaxFiles = 1;
    },
    want: 'invalid configuration: containerLogMaxFiles (--container-log-max-files) 1 must be equal to or greater than 2',
  },
  {
    name: 'container log max size a quantity',
    set: (c) => {
      c.containerLogMaxSize = 'big';
    },
    want: /containerLogMaxSize \(--container-log-max-size\) "big" is not a quantity/,
  },
  {
    name: 'container log max size positive',
    set: (c) => {
      c.containerLogMaxSize = '0';
    },
    want: /containerLogMaxSize \(--container-log-max-size\) "0" must be greater than 0/,
  },
  {
    name: 'pod pids limit',
    set: (c) => {
      c.podPidsLimit = -2;
    },
    want: /podPidsLimit \(--pod-max-pids\) -2 must be -1/,
  },
  {
    name: 'max open files',
    set: (c) => {
      c.maxOpenFiles = 0;
    },
    want: /maxOpenFiles \(--max-open-files\) 0 must be greater than 0/,
  },
  // allowed values
  {
    name: 'authorization mode',
    set: (c) => {
      c.authorization.mode = 'RBAC';
    },
    want: 'invalid configuration: authorization.mode (--authorization-mode) "RBAC" is not supported: must be one of AlwaysAllow, Webhook',
  },
  {
    name: 'cgroup driver',
    set: (c) => {
      c.cgroupDriver = 'foo';
    },
    want: /cgroupDriver \(--cgroup-driver\) "foo" is not supported: must be one of cgroupfs, systemd/,
  },
  {
    name: 'hairpin mode',
    set: (c) => {
      c.hairpinMode = 'x';
    },
    want: /hairpinMode \(--hairpin-mode\) "x" is invalid \(the reference: Invalid hairpin mode: unknown value: "x"\): accepted are promiscuous-bridge, hairpin-veth, none$/,
  },
  {
    name: 'cpu manager policy',
    set: (c) => {
      c.cpuManagerPolicy = 'dynamic';
    },
    want: /cpuManagerPolicy \(--cpu-manager-policy\) "dynamic" is not supported/,
  },
  {
    name: 'memory manager policy',
    set: (c) => {
      c.memoryManagerPolicy = 'static';
    },
    want: /memoryManagerPolicy \(--memory-manager-policy\) "static" is not supported: must be one of None, Static/,
  },
  {
    name: 'topology manager policy',
    set: (c) => {
      c.topologyManagerPolicy = 'best';
    },
    want: /topologyManagerPolicy \(--topology-manager-policy\) "best" is not supported/,
  },
  {
    name: 'topology manager scope',
    set: (c) => {
      c.topologyManagerScope = 'node';
    },
    want: /topologyManagerScope \(--topology-manager-scope\) "node" is not supported: must be one of container, pod/,
  },
  {
    name: 'logging format text only',
    set: (c) => {
      c.logging.format = 'json';
    },
    want: 'invalid configuration: logging.format (--logging-format) "json" is not supported: the permitted format is text',
  },
  {
    name: 'TLS min version names',
    set: (c) => {
      c.tlsMinVersion = 'TLS1.2';
    },
    want: /tlsMinVersion \(--tls-min-version\) "TLS1.2" is not supported: must be one of VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13/,
  },
  {
    name: 'TLS cipher suite names',
    set: (c) => {
      c.tlsCipherSuites = ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ECDHE-RSA-AES128-GCM-SHA256'];
    },
    want: /tlsCipherSuites \(--tls-cipher-suites\) \[ECDHE-RSA-AES128-GCM-SHA256\] are not supported cipher suites/,
  },
  {
    name: 'address is an IP',
    set: (c) => {
      c.address = 'localhost';
    },
    want: /address \(--address\) "localhost" is not a valid IP address/,
  },
  {
    name: 'healthz bind address is an IP',
    set: (c) => {
      c.healthzBindAddress = '300.1.1.1';
    },
    want: /healthzBindAddress \(--healthz-bind-address\) "300.1.1.1" is not a valid IP address/,
  },
  {
    name: 'cluster DNS are IPs',
    set: (c) => {
      c.clusterDNS = ['10.0.0.10', 'dns'];
    },
    want: /clusterDNS \(--cluster-dns\) "dns" is not a valid IP address/,
  },
  {
    name: 'pod CIDR',
    set: (c) => {
      c.podCIDR = '10.0.0.0/33';
    },
    want: /podCIDR \(--pod-cidr\) "10.0.0.0\/33" is not a valid CIDR/,
  },
  {
    name: 'pod CIDR dual-stack: one per family',
    set: (c) => {
      c.podCIDR = '10.0.0.0/24,10.1.0.0/24';
    },
    want: /podCIDR \(--pod-cidr\) "10.0.0.0\/24,10.1.0.0\/24" may hold at most two CIDRs, one IPv4 and one IPv6/,
  },
  {
    name: 'unsafe sysctl patterns',
    set: (c) => {
      c.allowedUnsafeSysctls = ['net.core.*', 'Bad Name'];
    },
    want: /allowedUnsafeSysctls \(--allowed-unsafe-sysctls\) "Bad Name" is not a valid sysctl/,
  },
  {
    name: 'reserved CPUs syntax',
    set: (c) => {
      c.reservedSystemCPUs = '3-1';
    },
    want: /reservedSystemCPUs \(--reserved-cpus\) "3-1" is not a CPU list/,
  },
  {
    name: 'cgroup names absolute',
    set: (c) => {
      c.nodeagentCgroups = 'nodeagent.slice';
    },
    want: /nodeagentCgroups \(--nodeagent-cgroups\) "nodeagent.slice" must be an absolute cgroup name/,
  },
  {
    name: 'cgroup names never climb out of the mount',
    set: (c) => {
      c.cgroupRoot = '/../../etc';
    },
    want: 'invalid configuration: cgroupRoot (--cgroup-root) "/../../etc" must not contain "." or ".." segments',
  },
  {
    name: 'manifest URL scheme',
    set: (c) => {
      c.staticPodURL = 'ftp://x/pods';
    },
    want: /staticPodURL \(--manifest-url\) "ftp:\/\/x\/pods" must be an http/,
  },
  // durations
  {
    name: 'durations parse',
    set: (c) => {
      c.syncFrequency = '1 minute';
    },
    want: /syncFrequency \(--sync-frequency\) "1 minute" is not a duration/,
  },
  {
    name: 'positive durations',
    set: (c) => {
      c.nodeStatusUpdateFrequency = '0s';
    },
    want: /nodeStatusUpdateFrequency \(--node-status-update-frequency\) "0s" must be greater than 0/,
  },
  {
    name: 'non-negative durations',
    set: (c) => {
      c.imageMinimumGCAge = '-1m';
    },
    want: /imageMinimumGCAge \(--minimum-image-ttl-duration\) "-1m" must not be a negative duration/,
  },
  {
    name: 'non-negative TTLs',
    set: (c) => {
      c.authorization.webhook.cacheAuthorizedTTL = '-5s';
    },
    want: /authorization.webhook.cacheAuthorizedTTL \(--authorization-webhook-cache-authorized-ttl\) "-5s" must not be a negative duration/,
  },
  {
    name: 'log flush frequency positive',
    set: (c) => {
      c.logging.flushFrequency = '0s';
    },
    want: /logging.flushFrequency \(--log-flush-frequency\) "0s" must be greater than 0/,
  },
  // exclusive with / must be set if / together
  {
    name: 'runonce exclusive with the server',
    set: (c) => {
      c.runOnce = true;
    },
    want: /runOnce \(--runonce\) true is exclusive with enableServer \(--enable-server\) true/,
  },
  {
    name: 'TLS cert and key together',
    set: (c) => {
      c.tlsCertFile = '/x.crt';
    },
    want: 'invalid configuration: tlsCertFile (--tls-cert-file) and tlsPrivateKeyFile (--tls-private-key-file) must be given together',
  },
  {
    name: 'manifest headers need a URL',
    set: (c) => {
      c.staticPodURLHeader = { A: ['b'] };
    },
    want: /staticPodURLHeader \(--manifest-url-header\) is set but staticPodURL \(--manifest-url\) is empty/,
  },
  // gates
  {
    name: 'CFS quota period needs its gate',
    set: (c) => {
      c.cpuCFSQuotaPeriod = '50ms';
    },
    want: 'invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) "50ms" requires feature gate CustomCPUCFSQuotaPeriod',
  },
  {
    name: 'CFS quota period range',
    set: (c) => {
      c.cpuCFSQuotaPeriod = '2s';
      c.featureGates = { CustomCPUCFSQuotaPeriod: true };
    },
    want: /cpuCFSQuotaPeriod \(--cpu-cfs-quota-period\) "2s" must be between 1ms and 1s/,
  },
  {
    name: 'qos reserved needs its gate',
    set: (c) => {
      c.qosReserved = { memory: '50%' };
    },
    want: /qosReserved \(--qos-reserved\) \{"memory":"50%"\} requires feature gate QOSReserved/,
  },
  {
    name: 'qos reserved only memory',
    set: (c) => {
      c.qosReserved = { cpu: '50%' };
      c.featureGates = { QOSReserved: true };
    },
    want: /qosReserved \(--qos-reserved\) "cpu" is not supported: only memory/,
  },
  {
    name: 'split stream needs LoggingAlphaOptions',
    set: (c) => {
      c.logging.options.text.splitStream = true;
    },
    want: 'invalid configuration: logging.options.text.splitStream (--log-text-split-stream) true requires feature gate LoggingAlphaOptions',
  },
  {
    name: 'info buffer needs LoggingAlphaOptions',
    set: (c) => {
      c.logging.options.text.infoBufferSize = '64Ki';
    },
    want: /logging.options.text.infoBufferSize \(--log-text-info-buffer-size\) "64Ki" requires feature gate LoggingAlphaOptions/,
  },
  {
    name: 'serving cert rotation needs its gate',
    set: (c) => {
      c.serverTLSBootstrap = true;
      c.featureGates = { RotatePlatletServerCertificate: false };
    },
    want: 'invalid configuration: serverTLSBootstrap (--rotate-server-certificates) true requires feature gate RotatePlatletServerCertificate',
  },
  {
    name: 'CPU manager policy options need their gate',
    set: (c) => {
      c.cpuManagerPolicyOptions = { 'full-pcpus-only': 'true' };
      c.featureGates = { CPUManagerPolicyOptions: false };
    },
    want: /cpuManagerPolicyOptions \(--cpu-manager-policy-options\) \{"full-pcpus-only":"true"\} requires feature gate CPUManagerPolicyOptions/,
  },
  {
    name: 'unknown feature gate',
    set: (c) => {
      c.featureGates = { NoSuchGate: true };
    },
    want: /featureGates \(--feature-gates\) unrecognized feature gate: NoSuchGate \(known gates: AllAlpha, /,
  },
  // enforce node allocatable
  {
    name: 'none is exclusive',
    set: (c) => {
      c.enforceNodeAllocatable = ['none', 'pods'];
    },
    want: 'invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) may not contain additional enforcements when "none" is specified',
  },
  {
    name: 'enforcement needs cgroups per QoS',
    set: (c) => {
      c.cgroupsPerQOS = false;
    },
    want: 'invalid configuration: enforceNodeAllocatable (--enforce-node-allocatable) is not supported unless cgroupsPerQOS (--cgroups-per-qos) feature is turned on',
  },
  {
    name: 'unknown enforcement level',
    set: (c) => {
      c.enforceNodeAllocatable = ['pods', 'kube-reserved'];
    },
    want: /enforceNodeAllocatable \(--enforce-node-allocatable\) "kube-reserved" is not a valid option/,
  },
  {
    name: 'system-reserved needs its cgroup',
    set: (c) => {
      c.enforceNodeAllocatable = ['pods', 'system-reserved'];
    },
    want: 'invalid configuration: systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" is contained in enforceNodeAllocatable (--enforce-node-allocatable)',
  },
  {
    name: 'system-reserved-compressible needs its cgroup',
    set: (c) => {
      c.enforceNodeAllocatable = ['system-reserved-compressible'];
    },
    want: /systemReservedCgroup \(--system-reserved-cgroup\) must be specified when "system-reserved-compressible"/,
  },
  {
    name: 'plat-reserved needs its cgroup',
    set: (c) => {
      c.enforceNodeAllocatable = ['plat-reserved'];
    },
    want: 'invalid configuration: platReservedCgroup (--plat-reserved-cgroup) must be specified when "plat-reserved" is contained in enforceNodeAllocatable (--enforce-node-allocatable)',
  },
  {
    name: 'plat-reserved-compressible needs its cgroup',
    set: (c) => {
      c.enforceNodeAllocatable = ['plat-reserved-compressible'];
    },
    want: /platReservedCgroup \(--plat-reserved-cgroup\) must be specified when "plat-reserved-compressible"/,
  },
  // reserved resources and eviction
  {
    name: 'reservable resources',
    set: (c) => {
      c.systemReserved = { gpu: '1' };
    },
    want: /systemReserved \(--system-reserved\) "gpu" is not a reservable resource/,
  },
  {
    name: 'reserved quantities',
    set: (c) => {
      c.platReserved = { memory: 'lots' };
    },
    want: /platReserved \(--plat-reserved\) "memory=lots" has a value that is not a quantity/,
  },
  {
    name: 'eviction signal names',
    set: (c) => {
      c.evictionHard = { 'memory.free': '1Gi' };
    },
    want: /evictionHard \(--eviction-hard\) "memory.free" is not an eviction signal/,
  },
  {
    name: 'eviction threshold values',
    set: (c) => {
      c.evictionHard = { 'nodefs.available': '120%' };
    },
    want: /evictionHard \(--eviction-hard\) "nodefs.available=120%" percentage must be greater than 0% and at most 100%/,
  },
  {
    name: 'eviction threshold quantity',
    set: (c) => {
      c.evictionSoft = { 'memory.available': 'much' };
      c.evictionSoftGracePeriod = { 'memory.available': '1m' };
    },
    want: /evictionSoft \(--eviction-soft\) "memory.available=much" must be a quantity/,
  },
  {
    name: 'soft threshold needs a grace period',
    set: (c) => {
      c.evictionSoft = { 'memory.available': '1Gi' };
    },
    want: 'invalid configuration: evictionSoft (--eviction-soft) threshold memory.available has no grace period in evictionSoftGracePeriod (--eviction-soft-grace-period)',
  },
  {
    name: 'grace periods are durations',
    set: (c) => {
      c.evictionSoftGracePeriod = { 'memory.available': 'soon' };
    },
    want: /evictionSoftGracePeriod \(--eviction-soft-grace-period\) "memory.available=soon" must be a non-negative duration/,
  },
  {
    name: 'minimum reclaim signals',
    set: (c) => {
      c.evictionMinimumReclaim = { cpu: '1' };
    },
    want: /evictionMinimumReclaim \(--eviction-minimum-reclaim\) "cpu" is not an eviction signal/,
  },
  {
    name: 'reserved memory totals per type',
    set: (c) => {
      c.platReserved = { memory: '512Mi' };
      c.systemReserved = { memory: '412Mi' };
      c.reservedMemory = [
        { numaNode: 0, limits: { memory: '512Mi' } },
        { numaNode: 1, limits: { memory: '256Mi' } },
      ];
    },
    want: 'invalid configuration: reservedMemory (--reserved-memory) the total amount "768Mi" of type "memory" is not equal to the value "1Gi" determined by platReserved (--plat-reserved) + systemReserved (--system-reserved) + evictionHard (--eviction-hard) memory.available',
  },
  {
    name: 'reserved memory hugepages totals',
    set: (c) => {
      c.reservedMemory = [{ numaNode: 0, limits: { memory: '100Mi', 'hugepages-1Gi': '2Gi' } }];
      c.systemReserved = { 'hugepages-1Gi': '1Gi' };
    },
    want: /the total amount "2Gi" of type "hugepages-1Gi" is not equal to the value "1Gi"/,
  },
  {
    name: 'reserved memory types',
    set: (c) => {
      c.reservedMemory = [{ numaNode: 0, limits: { cpu: '1' } }];
    },
    want: /reservedMemory \(--reserved-memory\) "cpu" is not a memory type/,
  },
  // taints
  {
    name: 'taint effect',
    set: (c) => {
      c.registerWithTaints = [{ key: 'a', value: 'b', effect: 'Sometimes' }];
    },
    want: /registerWithTaints \(--register-with-taints\) "a=b:Sometimes" invalid taint spec: invalid taint effect: Sometimes/,
  },
  {
    name: 'taint key syntax',
    set: (c) => {
      c.registerWithTaints = [{ key: 'bad key', effect: 'NoSchedule' }];
    },
    want: /registerWithTaints \(--register-with-taints\) "bad key:NoSchedule" invalid taint spec/,
  },
  {
    name: 'duplicate taints',
    set: (c) => {
      c.registerWithTaints = [
        { key: 'a', effect: 'NoSchedule' },
        { key: 'a', value: 'x', effect: 'NoSchedule' },
      ];
    },
    want: /duplicated taints with the same key and effect: a:NoSchedule/,
  },
  // logging
  {
    name: 'verbosity non-negative',
    set: (c) => {
      c.logging.verbosity = -1;
    },
    want: /logging.verbosity \(--v\) -1 must not be a negative number/,
  },
  {
    name: 'platform domain',
    set: (c) => {
      c.platformDomain = 'Not A Domain';
    },
    want: /platformDomain \(--platform-domain\) "Not A Domain" must be a lowercase DNS subdomain/,
  },
];

for (const c of cases) {
  test(`rule: ${c.name}`, () => {
    const p = problemsOf(c.set);
    const hit = p.find((x) => (typeof c.want === 'string' ? x === c.want : c.want.test(x)));
    assert.ok(hit !== undefined, `expected ${String(c.want)} among:\n${p.join('\n')}`);
  });
}

test('every problem is reported at once', () => {
  const p = problemsOf((c) => {
    c.eventRecordQPS = -1;
    c.imageGCHighThresholdPercent = 150;
    c.logging.format = 'json';
    c.containerLogMaxFiles = 0;
  });
  assert.equal(p.length, 4, p.join('\n'));
  assert.deepEqual(p.slice(0, 2), [
    'invalid configuration: eventRecordQPS (--event-qps) -1 must not be a negative number',
    'invalid configuration: imageGCHighThresholdPercent (--image-gc-high-threshold) 150 must be between 0 and 100, inclusive',
  ]);
});

test('gated settings pass with their gates on, valid values pass', () => {
  const p = problemsOf((c) => {
    c.featureGates = {
      CustomCPUCFSQuotaPeriod: true,
      QOSReserved: true,
      LoggingAlphaOptions: true,
    };
    c.cpuCFSQuotaPeriod = '50ms';
    c.qosReserved = { memory: '50%' };
    c.logging.options.text = { splitStream: true, infoBufferSize: '64Ki' };
    c.serverTLSBootstrap = true; // RotatePlatletServerCertificate is beta, on by default
    c.enforceNodeAllocatable = ['pods', 'system-reserved', 'plat-reserved-compressible'];
    c.systemReservedCgroup = '/system.slice';
    c.platReservedCgroup = '/plat.slice';
    c.platReserved = { memory: '512Mi', cpu: '500m' };
    c.systemReserved = { memory: '412Mi' };
    c.reservedMemory = [
      { numaNode: 0, limits: { memory: '512Mi' } },
      { numaNode: 1, limits: { memory: '512Mi' } },
    ];
    c.registerWithTaints = [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }];
    c.evictionSoft = { 'memory.available': '1.5Gi' };
    c.evictionSoftGracePeriod = { 'memory.available': '1m30s' };
    c.tlsCipherSuites = ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'];
    c.tlsMinVersion = 'VersionTLS12';
    c.runOnce = true;
    c.enableServer = false;
  });
  assert.deepEqual(p, []);
});

function flagsWith(set: Partial<NodeAgentFlags>): NodeAgentFlags {
  return { ...buildNodeAgentFlags(FLAGS, new Map()), ...set } as NodeAgentFlags;
}

test('--node-labels: reserved namespace rules with the reference message', () => {
  const ok = flagsWith({
    nodeLabels: {
      'platform.io/hostname': 'n1',
      'node.platform.io/pool': 'a',
      'platlet.platform.io/x': 'y',
      'sub.node.platform.io/z': '1',
      'topology.platform.io/zone': 'z1',
      'failure-domain.beta.platform.io/region': 'r',
      'example.com/team': 'a',
      plain: 'b',
    },
  });
  assert.deepEqual(validateFlagOnly(ok, namesFor('platform', 'platform.io')), []);
  const bad = flagsWith({
    nodeLabels: {
      'platform.io/role': 'x',
      'foo.platform.io/bar': 'y',
      'platform.io/hostname': 'n1',
    },
  });
  assert.deepEqual(validateFlagOnly(bad, namesFor('platform', 'platform.io')), [
    "unknown 'platform.io' labels specified with --node-labels: [foo.platform.io/bar platform.io/role]",
  ]);
  assert.deepEqual(
    validateFlagOnly(
      flagsWith({ nodeLabels: { 'k8s.io/role': 'x' } }),
      namesFor('platform', 'k8s.io'),
    ),
    ["unknown 'k8s.io' labels specified with --node-labels: [k8s.io/role]"],
  );
  assert.match(
    validateFlagOnly(
      flagsWith({ nodeLabels: { 'bad key': 'x' } }),
      namesFor('platform', 'platform.io'),
    )[0] ?? '',
    /invalid node labels: bad key=x/,
  );
});

test('flag-only settings: node IP, cloud provider, hostname, lock-file pairing', () => {
  assert.deepEqual(
    validateFlagOnly(
      flagsWith({ nodeIP: '10.0.0.1,fd00::1' }),
      namesFor('platform', 'platform.io'),
    ),
    [],
  );
  assert.match(
    validateFlagOnly(flagsWith({ nodeIP: 'x' }), namesFor('platform', 'platform.io'))[0] ?? '',
    /for --node-ip/,
  );
  assert.match(
    validateFlagOnly(
      flagsWith({ nodeIP: '10.0.0.1,10.0.0.2' }),
      namesFor('platform', 'platform.io'),
    )[0] ?? '',
    /one IPv4 and one IPv6/,
  );
  assert.match(
    validateFlagOnly(flagsWith({ cloudProvider: 'aws' }), namesFor('platform', 'platform.io'))[0] ??
      '',
    /--cloud-provider: only "" \(none\) and "external"/,
  );
  assert.match(
    validateFlagOnly(
      flagsWith({ hostnameOverride: 'not_valid!' }),
      namesFor('platform', 'platform.io'),
    )[0] ?? '',
    /--hostname-override/,
  );
  assert.deepEqual(
    validateFlagOnly(
      flagsWith({ exitOnLockContention: true }),
      namesFor('platform', 'platform.io'),
    ),
    ['--exit-on-lock-contention needs --lock-file'],
  );
});

test('--pod-cidr: one CIDR or an IPv4 and an IPv6 one are accepted; any other string is a problem naming the flag, never a throw', () => {
  for (const ok of ['10.244.0.0/24', 'fd00:10:244::/64', '10.244.0.0/16,fd00::/64', '10.0.0.1/32'])
    assert.deepEqual(
      problemsOf((c) => {
        c.podCIDR = ok;
      }),
      [],
      ok,
    );
  fc.assert(
    fc.property(fc.string({ maxLength: 64 }), (s) => {
      const problems = problemsOf((c) => {
        c.podCIDR = s;
      });
      return problems.every((p) => p.includes('podCIDR (--pod-cidr) '));
    }),
    { numRuns: 300 },
  );
});
