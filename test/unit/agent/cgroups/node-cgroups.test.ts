// The hierarchy on a fake cgroup tree (v1 and v2): the pods' top-level cgroup with node
// allocatable, the QoS cgroups, pod cgroups with their limits, process placement, removal,
// orphans, the reserved cgroups of --enforce-node-allocatable, --nodeagent-cgroups and
// --system-cgroups, and the reference's refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CgroupFs } from '../../../../src/agent/cgroups/cgroup-fs.js';
import { NodeCgroups, type NodeCgroupsConfig } from '../../../../src/agent/cgroups/node-cgroups.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { fakeCgroupTree } from './fake-tree.js';

const Gi = 1024 ** 3;
const CAPACITY = { cpu: 4, memory: 8 * Gi, pid: 32768 };
const LIMITS = { enforceCpuLimits: true, cpuPeriodUs: 100_000, podPidsLimit: -1 };

function config(over: Partial<NodeCgroupsConfig> = {}): NodeCgroupsConfig {
  return {
    cgroupsPerQOS: true,
    cgroupRoot: '',
    cgroupDriver: 'cgroupfs',
    enforceNodeAllocatable: ['pods'],
    systemReserved: {},
    platReserved: {},
    systemReservedCgroup: '',
    platReservedCgroup: '',
    nodeagentCgroups: '',
    systemCgroups: '',
    qosReserved: {},
    ...over,
  };
}

function pod(
  uid: string,
  resources: { requests?: Record<string, string>; limits?: Record<string, string> } = {},
): Pod {
  return {
    metadata: { name: `p-${uid}`, namespace: 'ns', uid },
    spec: { containers: [{ name: 'c', resources }] },
  };
}

test('v1 fake tree: --cgroups-per-qos builds <root>/kubepods with allocatable, burstable and besteffort, pod cgroups with the pod limits, and removes them', async (t) => {
  const tree = await fakeCgroupTree('v1');
  t.after(() => tree.cleanup());
  for (const c of ['cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'systemd'])
    await mkdir(join(tree.mount, c, 'test-root'));
  const log = recordingLogger();
  const killed: number[] = [];
  const node = new NodeCgroups({
    config: config({
      cgroupRoot: '/test-root',
      systemReserved: { cpu: '500m', memory: '1Gi' },
      platReserved: { cpu: '500m', memory: '1Gi', pid: '1000' },
    }),
    fs: new CgroupFs({ mount: tree.mount, version: 'v1' }),
    product: 'kube',
    limits: LIMITS,
    capacity: CAPACITY,
    logger: log,
    kill: (pid) => killed.push(pid),
  });
  await node.start();
  assert.equal(node.podsCgroup(), '/test-root/kubepods');
  // allocatable: 4 - 1 cores → 3072 shares, 8Gi - 2Gi memory, pid 32768 - 1000
  assert.equal(await tree.read('cpu', 'test-root', 'kubepods', 'cpu.shares'), '3072');
  assert.equal(
    await tree.read('memory', 'test-root', 'kubepods', 'memory.limit_in_bytes'),
    String(6 * Gi),
  );
  assert.equal(await tree.read('pids', 'test-root', 'kubepods', 'pids.max'), '31768');
  assert.equal(await tree.read('cpu', 'test-root', 'kubepods', 'besteffort', 'cpu.shares'), '2');
  assert.equal(await tree.read('cpu', 'test-root', 'kubepods', 'burstable', 'cpu.shares'), '2');
  assert.equal(
    await tree.read('cpuset', 'test-root', 'kubepods', 'burstable', 'cpuset.cpus'),
    '0-3',
    "a new cpuset cgroup takes its parent's cpus",
  );
  const pods = node.pods;
  assert.ok(pods !== undefined);
  const g = pod('g-1', { limits: { cpu: '1', memory: '128Mi' } });
  const b = pod('b-1', { requests: { cpu: '250m' }, limits: { cpu: '500m' } });
  const be = pod('be-1');
  for (const p of [g, b, be]) await pods.ensure(p);
  assert.equal(pods.dockerParent(g), '/test-root/kubepods/podg-1');
  assert.equal(await tree.read('cpu', 'test-root', 'kubepods', 'podg-1', 'cpu.shares'), '1024');
  assert.equal(
    await tree.read('cpu', 'test-root', 'kubepods', 'podg-1', 'cpu.cfs_quota_us'),
    '100000',
  );
  assert.equal(
    await tree.read('cpu', 'test-root', 'kubepods', 'podg-1', 'cpu.cfs_period_us'),
    '100000',
  );
  assert.equal(
    await tree.read('memory', 'test-root', 'kubepods', 'podg-1', 'memory.limit_in_bytes'),
    String(128 * 1024 * 1024),
  );
  assert.equal(
    await tree.read('cpu', 'test-root', 'kubepods', 'burstable', 'podb-1', 'cpu.cfs_quota_us'),
    '50000',
  );
  assert.ok(
    !tree.exists('memory', 'test-root', 'kubepods', 'burstable', 'podb-1', 'memory.limit_in_bytes'),
    'no memory limit declared: none set',
  );
  assert.equal(
    await tree.read('cpu', 'test-root', 'kubepods', 'besteffort', 'podbe-1', 'cpu.shares'),
    '2',
  );
  assert.equal(
    await tree.read('cpu', 'test-root', 'kubepods', 'burstable', 'cpu.shares'),
    '256',
    "the Burstable shares follow the Burstable pods' requests",
  );
  for (const c of ['cpuacct', 'cpuset', 'memory', 'pids', 'systemd'])
    assert.ok(tree.exists(c, 'test-root', 'kubepods', 'podg-1'), `${c} hierarchy`);
  await pods.addProcess(pods.path(g), 4242);
  assert.equal(
    await tree.read('memory', 'test-root', 'kubepods', 'podg-1', 'cgroup.procs'),
    '4242',
  );
  await pods.remove(g);
  assert.deepEqual(
    killed,
    [4242, 4242, 4242, 4242, 4242],
    'what is left in the pod cgroup is killed (5 rounds on a fake tree, whose procs never empty)',
  );
  for (const c of ['cpu', 'memory', 'cpuset', 'systemd'])
    assert.ok(!tree.exists(c, 'test-root', 'kubepods', 'podg-1'), `${c}: the pod cgroup is gone`);
  await pods.remove(b);
  assert.equal(
    await tree.read('cpu', 'test-root', 'kubepods', 'burstable', 'cpu.shares'),
    '2',
    'the Burstable shares drop when its pod goes',
  );
  // an orphan (left from before a restart) is removed; a wanted one is kept
  await mkdir(join(tree.mount, 'cpu', 'test-root', 'kubepods', 'besteffort', 'podorphan-1'));
  await pods.cleanupOrphans((uid) => uid === 'be-1');
  assert.ok(!tree.exists('cpu', 'test-root', 'kubepods', 'besteffort', 'podorphan-1'));
  assert.ok(tree.exists('cpu', 'test-root', 'kubepods', 'besteffort', 'podbe-1'));
  assert.ok(
    log.lines.some(
      (l) => l.msg === 'removed the cgroup of an orphaned pod' && l.fields['uid'] === 'orphan-1',
    ),
  );
});

test('--cgroup-driver=systemd: slices on the fake tree and the Docker CgroupParent is the leaf slice', async (t) => {
  const tree = await fakeCgroupTree('v1');
  t.after(() => tree.cleanup());
  const node = new NodeCgroups({
    config: config({ cgroupDriver: 'systemd' }),
    fs: new CgroupFs({ mount: tree.mount, version: 'v1' }),
    product: 'kube',
    limits: LIMITS,
    capacity: CAPACITY,
    logger: recordingLogger(),
  });
  await node.start();
  const p = pod('a-b-c', { requests: { cpu: '100m' } });
  await node.pods?.ensure(p);
  assert.ok(
    tree.exists(
      'cpu',
      'kubepods.slice',
      'kubepods-burstable.slice',
      'kubepods-burstable-poda_b_c.slice',
      'cpu.shares',
    ),
  );
  assert.equal(node.pods?.dockerParent(p), 'kubepods-burstable-poda_b_c.slice');
  assert.deepEqual(
    [...((await node.pods?.podCgroups()) ?? new Map())],
    [['a-b-c', '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-poda_b_c.slice']],
  );
});

test('v2 fake tree: controllers enabled in subtree_control; cpu.weight, cpu.max, memory.max, pids.max', async (t) => {
  const tree = await fakeCgroupTree('v2');
  t.after(() => tree.cleanup());
  const node = new NodeCgroups({
    config: config(),
    fs: new CgroupFs({ mount: tree.mount, version: 'v2' }),
    product: 'plat',
    limits: { ...LIMITS, podPidsLimit: 100 },
    capacity: CAPACITY,
    logger: recordingLogger(),
  });
  await node.start();
  assert.equal(await tree.read('cgroup.subtree_control'), '+cpu +cpuset +memory +pids');
  assert.equal(await tree.read('platpods', 'cgroup.subtree_control'), '+cpu +cpuset +memory +pids');
  assert.equal(await tree.read('platpods', 'cpu.weight'), '157', '4 cores: 4096 shares');
  assert.equal(await tree.read('platpods', 'memory.max'), String(8 * Gi));
  const g = pod('g2', { limits: { cpu: '500m', memory: '64Mi' } });
  await node.pods?.ensure(g);
  assert.equal(await tree.read('platpods', 'podg2', 'cpu.max'), '50000 100000');
  assert.equal(await tree.read('platpods', 'podg2', 'cpu.weight'), '20');
  assert.equal(await tree.read('platpods', 'podg2', 'memory.max'), String(64 * 1024 * 1024));
  assert.equal(await tree.read('platpods', 'podg2', 'pids.max'), '100');
  const be = pod('be2');
  await node.pods?.ensure(be);
  assert.equal(await tree.read('platpods', 'besteffort', 'podbe2', 'cpu.weight'), '1');
  await node.pods?.remove(be);
  assert.ok(!tree.exists('platpods', 'besteffort', 'podbe2'));
  // a host without the memory and pids controllers: the pod still gets its cgroup and CPU limits
  const cpuOnly = await fakeCgroupTree('v2', ['cpu']);
  t.after(() => cpuOnly.cleanup());
  const partial = new NodeCgroups({
    config: config(),
    fs: new CgroupFs({ mount: cpuOnly.mount, version: 'v2' }),
    product: 'plat',
    limits: { ...LIMITS, podPidsLimit: 100 },
    capacity: CAPACITY,
    logger: recordingLogger(),
  });
  await partial.start();
  await partial.pods?.ensure(g);
  assert.equal(await cpuOnly.read('platpods', 'podg2', 'cpu.max'), '50000 100000');
  assert.ok(
    !cpuOnly.exists('platpods', 'podg2', 'memory.max') &&
      !cpuOnly.exists('platpods', 'podg2', 'pids.max'),
  );
  assert.equal(await cpuOnly.read('cgroup.subtree_control'), '+cpu');
});

test('--cgroup-root must exist: the reference\'s "has some missing paths" refusal', async (t) => {
  const tree = await fakeCgroupTree('v1', ['cpu', 'memory']);
  t.after(() => tree.cleanup());
  const node = new NodeCgroups({
    config: config({ cgroupRoot: '/nope/deeper' }),
    fs: new CgroupFs({ mount: tree.mount, version: 'v1' }),
    product: 'kube',
    limits: LIMITS,
    capacity: CAPACITY,
    logger: recordingLogger(),
  });
  await assert.rejects(node.start(), {
    message: `invalid configuration: cgroup ["nope" "deeper"] has some missing paths: ${tree.mount}/cpu/nope/deeper, ${tree.mount}/memory/nope/deeper`,
  });
});

test('--enforce-node-allocatable: pods off leaves kubepods at capacity; system-reserved and plat-reserved limit their existing cgroups, compressible only CPU', async (t) => {
  const tree = await fakeCgroupTree('v1', ['cpu', 'memory', 'pids']);
  t.after(() => tree.cleanup());
  for (const c of ['cpu', 'memory', 'pids']) {
    await mkdir(join(tree.mount, c, 'system.slice'));
    await mkdir(join(tree.mount, c, 'plat.slice'));
  }
  const fs = new CgroupFs({ mount: tree.mount, version: 'v1' });
  const reserved = {
    systemReserved: { cpu: '1', memory: '512Mi', pid: '500' },
    platReserved: { cpu: '250m', memory: '256Mi' },
    systemReservedCgroup: '/system.slice',
    platReservedCgroup: '/plat.slice',
  };
  const node = new NodeCgroups({
    config: config({
      ...reserved,
      enforceNodeAllocatable: ['system-reserved', 'plat-reserved-compressible'],
    }),
    fs,
    product: 'plat',
    limits: LIMITS,
    capacity: CAPACITY,
    logger: recordingLogger(),
  });
  await node.start();
  assert.equal(
    await tree.read('cpu', 'platpods', 'cpu.shares'),
    '4096',
    'pods not enforced: capacity',
  );
  assert.equal(await tree.read('memory', 'platpods', 'memory.limit_in_bytes'), String(8 * Gi));
  assert.equal(await tree.read('cpu', 'system.slice', 'cpu.shares'), '1024');
  assert.equal(
    await tree.read('memory', 'system.slice', 'memory.limit_in_bytes'),
    String(512 * 1024 * 1024),
  );
  assert.equal(await tree.read('pids', 'system.slice', 'pids.max'), '500');
  assert.equal(await tree.read('cpu', 'plat.slice', 'cpu.shares'), '256');
  assert.ok(
    !tree.exists('memory', 'plat.slice', 'memory.limit_in_bytes'),
    'compressible: CPU only',
  );
  const missing = new NodeCgroups({
    config: config({
      ...reserved,
      systemReservedCgroup: '/absent.slice',
      enforceNodeAllocatable: ['pods', 'system-reserved'],
    }),
    fs,
    product: 'plat',
    limits: LIMITS,
    capacity: CAPACITY,
    logger: recordingLogger(),
  });
  await assert.rejects(missing.start(), {
    message: `Failed to enforce System Reserved Cgroup Limits on "/absent.slice": cgroup ["absent.slice"] has some missing paths: ${tree.mount}/cpu/absent.slice, ${tree.mount}/memory/absent.slice, ${tree.mount}/pids/absent.slice`,
  });
  const kube = new NodeCgroups({
    config: config({
      ...reserved,
      platReservedCgroup: '/absent.slice',
      enforceNodeAllocatable: ['kube-reserved'],
    }),
    fs,
    product: 'kube',
    limits: LIMITS,
    capacity: CAPACITY,
    logger: recordingLogger(),
  });
  await assert.rejects(
    kube.start(),
    /^Error: Failed to enforce Kube Reserved Cgroup Limits on "\/absent.slice"/,
  );
});

test('--nodeagent-cgroups moves the agent into its cgroup; --system-cgroups moves the non-kernel processes of the root cgroup, never pid 1; "/" is refused', async (t) => {
  const tree = await fakeCgroupTree('v1', ['cpu', 'memory']);
  t.after(() => tree.cleanup());
  const fs = new CgroupFs({ mount: tree.mount, version: 'v1' });
  let root = [1, 2, 300, 301];
  const moved: number[] = [];
  const processes = {
    rootPids: async () => root,
    isKernelPid: async (pid: number) => pid === 2,
  };
  const orig = fs.addProcess.bind(fs);
  fs.addProcess = async (path: string, pid: number) => {
    await orig(path, pid);
    if (path === '/system') {
      moved.push(pid);
      root = root.filter((p) => p !== pid);
    }
  };
  const node = new NodeCgroups({
    config: config({
      cgroupsPerQOS: false,
      enforceNodeAllocatable: [],
      cgroupRoot: '/',
      systemCgroups: '/system',
      nodeagentCgroups: '/nodeagent',
    }),
    fs,
    product: 'plat',
    limits: LIMITS,
    capacity: CAPACITY,
    logger: recordingLogger(),
    selfPid: 777,
    processes,
  });
  await node.start();
  assert.deepEqual(moved, [300, 301]);
  assert.equal(await tree.read('cpu', 'nodeagent', 'cgroup.procs'), '777');
  assert.equal(await tree.read('memory', 'nodeagent', 'cgroup.procs'), '777');
  assert.ok(!tree.exists('cpu', 'platpods'), 'no pods hierarchy without --cgroups-per-qos');
  const bad = new NodeCgroups({
    config: config({ cgroupsPerQOS: false, enforceNodeAllocatable: [], systemCgroups: '/' }),
    fs,
    product: 'plat',
    limits: LIMITS,
    capacity: CAPACITY,
    logger: recordingLogger(),
    processes,
  });
  await assert.rejects(bad.start(), { message: 'system container cannot be root ("/")' });
});

test('--qos-reserved memory=50%: the Burstable and BestEffort cgroups get the memory limits that keep half the requests of the classes above', async (t) => {
  const tree = await fakeCgroupTree('v1', ['cpu', 'memory']);
  t.after(() => tree.cleanup());
  const node = new NodeCgroups({
    config: config({ qosReserved: { memory: '50%' } }),
    fs: new CgroupFs({ mount: tree.mount, version: 'v1' }),
    product: 'plat',
    limits: LIMITS,
    capacity: CAPACITY,
    logger: recordingLogger(),
  });
  await node.start();
  assert.equal(
    await tree.read('memory', 'platpods', 'burstable', 'memory.limit_in_bytes'),
    String(8 * Gi),
    'no pods yet: allocatable',
  );
  await node.pods?.ensure(pod('g', { limits: { cpu: '1', memory: '2Gi' } }));
  await node.pods?.ensure(pod('b', { requests: { memory: '1Gi' } }));
  assert.equal(
    await tree.read('memory', 'platpods', 'burstable', 'memory.limit_in_bytes'),
    String(7 * Gi),
    '8Gi - 2Gi x 50%',
  );
  assert.equal(
    await tree.read('memory', 'platpods', 'besteffort', 'memory.limit_in_bytes'),
    String(7 * Gi - Gi / 2),
    'then - 1Gi x 50%',
  );
  const plain = new NodeCgroups({
    config: config(),
    fs: new CgroupFs({ mount: tree.mount, version: 'v1' }),
    product: 'kube',
    limits: LIMITS,
    capacity: CAPACITY,
    logger: recordingLogger(),
  });
  await plain.start();
  assert.ok(
    !tree.exists('memory', 'kubepods', 'burstable', 'memory.limit_in_bytes'),
    'without --qos-reserved no QoS memory limit',
  );
});
