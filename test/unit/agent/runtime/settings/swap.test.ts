// memorySwap.swapBehavior on Docker against the reference (kuberuntime
// configureContainerSwapResources, 1.32): NoSwap ("" too) gives no swap, LimitedSwap gives a
// Burstable container request / node memory * node swap, on cgroup v2 only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containerCreateOptions } from '../../../../../src/agent/runtime/docker/convert.js';
import { defaultContainerSettings } from '../../../../../src/agent/runtime/settings/container-settings.js';
import { buildPodSettings } from '../../../../../src/agent/runtime/settings/from-config.js';
import {
  hostSwapBytes,
  type SwapSettings,
} from '../../../../../src/agent/runtime/settings/swap.js';
import type { Container, Pod } from '../../../../../src/agent/pod/types.js';
import { recordingLogger } from '../../../../helpers/recording-logger.js';

const GI = 1024 ** 3;
function pod(resources: Container['resources']): Pod {
  return {
    metadata: { name: 'p', namespace: 'default', uid: 'u1' },
    spec: {
      containers: [
        { name: 'c', image: 'busybox:local', ...(resources !== undefined ? { resources } : {}) },
      ],
    },
  };
}
function hostConfig(p: Pod, swap: SwapSettings) {
  const settings = { ...defaultContainerSettings(), memoryCapacity: 8 * GI, swap };
  return containerCreateOptions({
    pod: p,
    container: p.spec.containers[0]!,
    kind: 'app',
    attempt: 0,
    specHash: 'h',
    sandboxId: 'sb',
    volumePaths: {},
    logOpts: {},
    settings,
  }).HostConfig;
}

test('memorySwap NoSwap (and ""): Docker MemorySwap equals Memory, so a container gets no swap', () => {
  const h = hostConfig(pod({ requests: { memory: '1Gi' }, limits: { memory: '2Gi' } }), {
    behavior: 'NoSwap',
    swapCapacityBytes: 4 * GI,
    cgroupV2: true,
  });
  assert.equal(h?.Memory, 2 * GI);
  assert.equal(h?.MemorySwap, 2 * GI);
  const none = hostConfig(pod(undefined), {
    behavior: 'NoSwap',
    swapCapacityBytes: 4 * GI,
    cgroupV2: true,
  });
  assert.equal(none?.MemorySwap, undefined, 'Docker bounds swap only with a memory limit');
});

test('memorySwap LimitedSwap: a Burstable container gets request / node memory * node swap on cgroup v2, none on v1', () => {
  const burstable = pod({ requests: { memory: '1Gi' }, limits: { memory: '2Gi' } });
  // 1Gi / 8Gi * 4Gi = 512Mi of swap on top of the 2Gi limit
  assert.equal(
    hostConfig(burstable, { behavior: 'LimitedSwap', swapCapacityBytes: 4 * GI, cgroupV2: true })
      ?.MemorySwap,
    2 * GI + 512 * 1024 ** 2,
  );
  assert.equal(
    hostConfig(burstable, { behavior: 'LimitedSwap', swapCapacityBytes: 4 * GI, cgroupV2: false })
      ?.MemorySwap,
    2 * GI,
  );
  const guaranteed = pod({
    requests: { memory: '2Gi', cpu: '1' },
    limits: { memory: '2Gi', cpu: '1' },
  });
  assert.equal(
    hostConfig(guaranteed, { behavior: 'LimitedSwap', swapCapacityBytes: 4 * GI, cgroupV2: true })
      ?.MemorySwap,
    2 * GI,
    'Guaranteed pods get no swap',
  );
});

test('memorySwap notes: LimitedSwap on cgroup v1 and containers without a memory limit on a host with swap say so once', () => {
  const base = {
    cpuCFSQuota: true,
    cpuCFSQuotaPeriod: '100ms',
    podPidsLimit: -1,
    seccompDefault: false,
    clusterDNS: [],
    clusterDomain: '',
    resolvConf: '',
    allowedUnsafeSysctls: [],
  };
  const s = buildPodSettings({
    config: { ...base, memorySwap: { swapBehavior: 'LimitedSwap' } },
    rootDir: '/tmp',
    runtimeType: 'docker',
    logger: recordingLogger(),
    cgroupV2: false,
    swapCapacityBytes: GI,
    canLowerOomScore: true,
  });
  assert.deepEqual(
    s.notes.map((n) => n.option),
    ['memorySwap.swapBehavior=LimitedSwap', 'memorySwap'],
  );
  assert.deepEqual(s.runtime.container.swap, {
    behavior: 'LimitedSwap',
    swapCapacityBytes: GI,
    cgroupV2: false,
  });
  assert.equal(hostSwapBytes('MemTotal:       16 kB\nSwapTotal:       2048 kB\n'), 2 * 1024 * 1024);
});
