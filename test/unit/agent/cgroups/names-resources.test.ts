// Cgroup names and pod limits, each against the reference's own test tables
// (pkg/kubelet/cm cgroup_manager_linux_test.go, helpers_linux_test.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  podCgroupName,
  podsCgroupComponent,
  podUidOfDir,
  parseCgroupfs,
  parseSystemd,
  toCgroupfs,
  toSystemd,
} from '../../../../src/agent/cgroups/names.js';
import { cpuSharesToWeight, podResourceConfig } from '../../../../src/agent/cgroups/resources.js';
import { qosResourceConfigs } from '../../../../src/agent/cgroups/qos-cgroups.js';
import { namesFor } from '../../../../src/common/names.js';
import type { Pod } from '../../../../src/agent/pod/types.js';

test('cgroup names: cgroupfs paths and systemd slices as the reference spells them', () => {
  // TestCgroupNameToSystemd
  assert.equal(toSystemd([]), '/');
  assert.equal(toSystemd(['system']), '/system.slice');
  assert.equal(toSystemd(['system', 'Burstable']), '/system.slice/system-Burstable.slice');
  assert.equal(toSystemd(['Burstable', 'pod-123']), '/Burstable.slice/Burstable-pod_123.slice');
  assert.equal(toSystemd(['test', 'a', 'b']), '/test.slice/test-a.slice/test-a-b.slice');
  assert.equal(
    toSystemd(['BestEffort', 'pod-6c1a4e95-6bb6-11e6-bc26-28d2444e470d']),
    '/BestEffort.slice/BestEffort-pod_6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice',
  );
  // TestCgroupNameToCgroupfs
  assert.equal(toCgroupfs([]), '/');
  assert.equal(toCgroupfs(['Burstable']), '/Burstable');
  assert.deepEqual(parseCgroupfs('/a/b'), ['a', 'b']);
  assert.deepEqual(parseCgroupfs('/'), []);
  assert.deepEqual(parseSystemd('/kubepods.slice/kubepods-burstable.slice'), [
    'kubepods',
    'burstable',
  ]);
  assert.deepEqual(parseSystemd('system.slice'), ['system']);
});

test("the pods' top-level cgroup: kubepods under the kubernetes profile, platpods under the platform one; pod cgroups per QoS class", () => {
  assert.equal(podsCgroupComponent(namesFor('kubernetes')), 'kubepods');
  assert.equal(podsCgroupComponent(namesFor('platform')), 'platpods');
  const pods = ['kubepods'];
  const uid = '6c1a4e95-6bb6-11e6-bc26-28d2444e470d';
  assert.equal(toCgroupfs(podCgroupName(pods, 'Guaranteed', uid)), `/kubepods/pod${uid}`);
  assert.equal(toCgroupfs(podCgroupName(pods, 'Burstable', uid)), `/kubepods/burstable/pod${uid}`);
  assert.equal(
    toCgroupfs(podCgroupName(pods, 'BestEffort', uid)),
    `/kubepods/besteffort/pod${uid}`,
  );
  assert.equal(
    toSystemd(podCgroupName(pods, 'Burstable', uid)),
    '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice',
  );
  assert.equal(podUidOfDir(`pod${uid}`, 'cgroupfs'), uid);
  assert.equal(
    podUidOfDir('kubepods-burstable-pod6c1a4e95_6bb6_11e6_bc26_28d2444e470d.slice', 'systemd'),
    uid,
  );
  assert.equal(podUidOfDir('burstable', 'cgroupfs'), undefined);
});

function pod(
  containers: { requests?: Record<string, string>; limits?: Record<string, string> }[],
): Pod {
  return {
    metadata: { name: 'p', namespace: 'ns', uid: 'u1' },
    spec: {
      containers: containers.map((r, i) => ({
        name: `c${i}`,
        resources: {
          ...(r.requests ? { requests: r.requests } : {}),
          ...(r.limits ? { limits: r.limits } : {}),
        },
      })),
    },
  };
}

const ON = { enforceCpuLimits: true, cpuPeriodUs: 100_000, podPidsLimit: -1 };

test("pod limits as the reference's ResourceConfigForPod (TestResourceConfigForPod)", () => {
  const r100 = { cpu: '100m', memory: '100Mi' };
  const r200 = { cpu: '200m', memory: '200Mi' };
  const Mi = 1024 * 1024;
  assert.deepEqual(podResourceConfig(pod([{}]), ON), { cpuShares: 2 }, 'besteffort: minShares');
  assert.deepEqual(
    podResourceConfig(pod([{ requests: r100 }]), ON),
    { cpuShares: 102 },
    'burstable-no-limits',
  );
  assert.deepEqual(
    podResourceConfig(pod([{ requests: r100, limits: r200 }]), ON),
    { cpuShares: 102, cpuQuota: 20000, cpuPeriod: 100000, memory: 200 * Mi },
    'burstable-with-limits',
  );
  assert.deepEqual(
    podResourceConfig(pod([{ requests: r100, limits: r200 }, { requests: r100 }]), ON),
    { cpuShares: 204 },
    'burstable-partial-limits: no quota, no memory limit',
  );
  assert.deepEqual(
    podResourceConfig(pod([{ requests: r100, limits: r100 }]), ON),
    { cpuShares: 102, cpuQuota: 10000, cpuPeriod: 100000, memory: 100 * Mi },
    'guaranteed',
  );
  assert.deepEqual(
    podResourceConfig(pod([{ requests: r100, limits: r100 }]), { ...ON, enforceCpuLimits: false }),
    { cpuShares: 102, cpuQuota: -1, cpuPeriod: 100000, memory: 100 * Mi },
    'guaranteed-with-disabled-cfs-quota',
  );
  assert.deepEqual(
    podResourceConfig(pod([{ requests: r100, limits: r100 }]), { ...ON, cpuPeriodUs: 5000 }),
    { cpuShares: 102, cpuQuota: 1000, cpuPeriod: 5000, memory: 100 * Mi },
    'guaranteed-with-tuned-quota: the 1ms minimum',
  );
  assert.equal(
    podResourceConfig(pod([{}]), { ...ON, podPidsLimit: 64 }).pidsLimit,
    64,
    '--pod-max-pids on the pod cgroup',
  );
});

test("cgroup v2 cpu.weight from shares (the reference's getCPUWeight)", () => {
  assert.equal(cpuSharesToWeight(2), 1);
  assert.equal(cpuSharesToWeight(1024), 39);
  assert.equal(cpuSharesToWeight(102), 4);
  assert.equal(cpuSharesToWeight(262144), 10000);
});

test("QoS cgroups: BestEffort 2 shares, Burstable the sum of its pods' CPU requests; --qos-reserved memory limits", () => {
  const Gi = 1024 ** 3;
  const pods = [
    pod([{ requests: { cpu: '250m', memory: '1Gi' } }]),
    pod([{ requests: { cpu: '500m', memory: '1Gi' } }]),
    pod([{ limits: { cpu: '1', memory: '2Gi' } }]),
    pod([{}]),
  ];
  const none = qosResourceConfigs(pods, { allocatableMemory: 10 * Gi });
  assert.deepEqual(none, { Burstable: { cpuShares: 768 }, BestEffort: { cpuShares: 2 } });
  assert.deepEqual(
    qosResourceConfigs([], { allocatableMemory: 10 * Gi }).Burstable,
    { cpuShares: 2 },
    'no Burstable pod: MilliCPUToShares(0) is the minimum',
  );
  const reserved = qosResourceConfigs(pods, {
    allocatableMemory: 10 * Gi,
    memoryReservePercent: 50,
  });
  // burstableLimit = allocatable - guaranteedRequests*50%, bestEffortLimit = burstableLimit - burstableRequests*50%
  assert.equal(reserved.Burstable.memory, 10 * Gi - 1 * Gi);
  assert.equal(reserved.BestEffort.memory, 9 * Gi - 1 * Gi);
});

test('hostile cgroup paths and pod UIDs never reach outside the cgroup mount', async () => {
  const { CgroupFs } = await import('../../../../src/agent/cgroups/cgroup-fs.js');
  const fs = new CgroupFs({ mount: '/nonexistent-mount', version: 'v2' });
  for (const p of ['/a/../../etc', '/..', '/./x', '/a\u0000b']) {
    await assert.rejects(fs.create(p, {}), /^Error: invalid cgroup path .* is not allowed$/, p);
    await assert.rejects(fs.destroy(p), /is not allowed$/, p);
  }
  for (const uid of ['../../etc', 'a/b', '', 'x\u0000'])
    assert.throws(
      () => podCgroupName(['kubepods'], 'Guaranteed', uid),
      /cannot name a cgroup$/,
      uid,
    );
});
