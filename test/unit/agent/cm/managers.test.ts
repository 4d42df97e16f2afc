// The CPU, memory and topology managers over a fake sysfs with several NUMA nodes and sockets:
// exclusive CPUs and the shared pool, the state files, admission answers with the reference's
// reasons and messages, and the start errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildResourceManagers, type ManagersConfig } from '../../../../src/agent/cm/build.js';
import type { ResourceManagers } from '../../../../src/agent/cm/resource-managers.js';
import { readHostTopology } from '../../../../src/agent/cm/host-topology.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import { defaultConfiguration } from '../../../../src/agent/config/defaults.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { fakeSysfs, gridLayout } from '../../../helpers/fake-sysfs.js';

const GI = 1024 ** 3;

function config(over: Partial<ManagersConfig>): ManagersConfig {
  return { ...defaultConfiguration('flags'), ...over };
}

function pod(
  uid: string,
  containers: { name: string; cpu: string; memory: string; guaranteed?: boolean }[],
  init: typeof containers = [],
): Pod {
  const spec = (c: (typeof containers)[number]): Pod['spec']['containers'][number] => ({
    name: c.name,
    image: 'busybox:local',
    resources:
      c.guaranteed === false
        ? { requests: { cpu: c.cpu, memory: c.memory } }
        : { limits: { cpu: c.cpu, memory: c.memory } },
  });
  return {
    metadata: { uid, name: uid, namespace: 'ns' },
    spec: {
      containers: containers.map(spec),
      ...(init.length > 0 ? { initContainers: init.map(spec) } : {}),
    },
  };
}

interface Setup {
  sysfs: string;
  root: string;
  /** Builds the managers over this fake host; their pending state-file writes land before clean-up. */
  build: (c: ManagersConfig, runtimeType?: 'docker' | 'process') => Promise<ResourceManagers>;
}

async function setup(
  t: { after: (fn: () => Promise<void>) => void },
  layout = gridLayout(2, 2, 2, 4 * GI),
): Promise<Setup> {
  const fs = await fakeSysfs(layout);
  const root = await mkdtemp(join(tmpdir(), 'na-cm-'));
  const built: ResourceManagers[] = [];
  t.after(async () => {
    await Promise.all(built.map((m) => m.flush()));
    await fs.cleanup();
    await rm(root, { recursive: true, force: true });
  });
  const build = async (
    c: ManagersConfig,
    runtimeType: 'docker' | 'process' = 'docker',
  ): Promise<ResourceManagers> => {
    const m = await buildResourceManagers({
      config: c,
      gateEnabled: gates,
      rootDir: root,
      runtimeType,
      logger: recordingLogger(),
      sysfsRoot: fs.root,
    });
    built.push(m);
    return m;
  };
  return { sysfs: fs.root, root, build };
}

// every maturity level on: the alpha options (distribute-cpus-across-numa, align-by-socket) are exercised here
const gates = (): boolean => true;

test('the host layout is read from sysfs: CPUs per NUMA node, sockets, cores, memory, distances', async (t) => {
  const { sysfs } = await setup(t, {
    ...gridLayout(2, 2, 2, 4 * GI),
    hugepages: { 0: { 2048: 4 } },
    distances: [
      [10, 21],
      [21, 10],
    ],
  });
  const topo = readHostTopology({ sysfsRoot: sysfs, cpuCount: 1, memoryBytes: 1 });
  assert.equal(topo.numaFromSysfs, true);
  assert.deepEqual(
    topo.numaNodes.map((n) => [n.id, n.cpus.toString(), n.memoryBytes]),
    [
      [0, '0-3', 4 * GI],
      [1, '4-7', 4 * GI],
    ],
  );
  assert.deepEqual([...(topo.numaNodes[0]?.hugepages ?? [])], [[2 * 1024 * 1024, 4]]);
  assert.equal(topo.numaNodes[1]?.distances.get(0), 21);
  assert.deepEqual(
    topo.cpus.map((c) => c.socket),
    [0, 0, 0, 0, 1, 1, 1, 1],
  );
  assert.equal(new Set(topo.cpus.map((c) => c.core)).size, 4, 'core ids made unique per socket');
});

test('static policy: a Guaranteed pod with whole CPUs gets exclusive CPUs; the others share the pool; the state file lists them', async (t) => {
  const { root, build } = await setup(t);
  const m = await build(config({ cpuManagerPolicy: 'static', reservedSystemCPUs: '0' }));
  const g = pod('g', [{ name: 'c', cpu: '2', memory: '1Gi' }]);
  assert.deepEqual(m.admit(g), { admit: true });
  // whole core 2,3 on node 0 (0 is reserved, 1 shares its core with 0)
  assert.deepEqual(m.cpuset(g, g.spec.containers[0]!), { CpusetCpus: '2-3' });
  const b = pod('b', [{ name: 'c', cpu: '500m', memory: '1Gi', guaranteed: false }]);
  assert.deepEqual(m.admit(b), { admit: true });
  assert.deepEqual(
    m.cpuset(b, b.spec.containers[0]!),
    { CpusetCpus: '0-1,4-7' },
    'the shared pool keeps the reserved CPU',
  );
  const frac = pod('f', [{ name: 'c', cpu: '1500m', memory: '1Gi' }]);
  m.admit(frac);
  assert.deepEqual(
    m.cpuset(frac, frac.spec.containers[0]!),
    { CpusetCpus: '0-1,4-7' },
    'Guaranteed with a fractional CPU: shared pool',
  );
  await m.flush();
  const file = JSON.parse(await readFile(join(root, 'cpu_manager_state'), 'utf8')) as Record<
    string,
    unknown
  >;
  assert.equal(file['policyName'], 'static');
  assert.equal(file['defaultCpuSet'], '0-1,4-7');
  assert.deepEqual(file['entries'], { g: { c: '2-3' } });
  assert.equal(typeof file['checksum'], 'number');
  m.removeStale([b]);
  await m.flush();
  const after = JSON.parse(await readFile(join(root, 'cpu_manager_state'), 'utf8')) as Record<
    string,
    unknown
  >;
  assert.equal(after['defaultCpuSet'], '0-7', 'the pod is gone: its CPUs are back in the pool');
  assert.equal(after['entries'], undefined);
});

test('static policy: init container CPUs are reused by the app containers', async (t) => {
  const { build } = await setup(t);
  const m = await build(config({ cpuManagerPolicy: 'static', reservedSystemCPUs: '0' }));
  const p = pod(
    'p',
    [{ name: 'app', cpu: '2', memory: '1Gi' }],
    [{ name: 'init', cpu: '2', memory: '1Gi' }],
  );
  assert.deepEqual(m.admit(p), { admit: true });
  assert.equal(m.cpu.assigned('p', 'init')?.toString(), m.cpu.assigned('p', 'app')?.toString());
  assert.equal(m.cpu.defaultCpuSet().toString(), '0-1,4-7');
});

test('an allocation that cannot be met is UnexpectedAdmissionError; full-pcpus-only answers SMTAlignmentError', async (t) => {
  const { build } = await setup(t);
  const m = await build(
    config({
      cpuManagerPolicy: 'static',
      reservedSystemCPUs: '0',
      cpuManagerPolicyOptions: { 'full-pcpus-only': 'true' },
    }),
  );
  assert.deepEqual(m.admit(pod('odd', [{ name: 'c', cpu: '1', memory: '1Gi' }])), {
    admit: false,
    reason: 'SMTAlignmentError',
    message: 'SMT Alignment Error: requested 1 cpus not multiple cpus per core = 2',
  });
  // CPU 0 is reserved, so its sibling 1 is not a free physical core: 6 CPUs are
  assert.deepEqual(m.admit(pod('big', [{ name: 'c', cpu: '8', memory: '1Gi' }])), {
    admit: false,
    reason: 'SMTAlignmentError',
    message:
      'SMT Alignment Error: not enough free physical CPUs: available physical CPUs = 6, requested CPUs = 8, CPUs per core = 2',
  });
  const { build: b2 } = await setup(t);
  const plain = await b2(config({ cpuManagerPolicy: 'static', reservedSystemCPUs: '0' }));
  assert.deepEqual(plain.admit(pod('big', [{ name: 'c', cpu: '8', memory: '1Gi' }])), {
    admit: false,
    reason: 'UnexpectedAdmissionError',
    message:
      'Allocate failed due to not enough cpus available to satisfy request: requested=8, available=7, which is unexpected',
  });
  assert.equal(plain.cpu.defaultCpuSet().toString(), '0-7', 'nothing held for the refused pod');
});

test('topology policies: single-numa-node refuses what no one node holds (TopologyAffinityError); restricted aligns across two', async (t) => {
  for (const policy of ['single-numa-node', 'restricted', 'best-effort'] as const) {
    const { build } = await setup(t);
    const m = await build(
      config({
        cpuManagerPolicy: 'static',
        reservedSystemCPUs: '0',
        topologyManagerPolicy: policy,
      }),
    );
    // 4 CPUs: node 0 has 3 free (0 is reserved), node 1 has 4
    assert.deepEqual(
      m.admit(pod('four', [{ name: 'c', cpu: '4', memory: '1Gi' }])),
      { admit: true },
      policy,
    );
    assert.equal(m.cpu.assigned('four', 'c')?.toString(), '4-7', `${policy}: aligned to node 1`);
    const r = m.admit(pod('five', [{ name: 'c', cpu: '3', memory: '1Gi' }]));
    assert.deepEqual(r, { admit: true }, `${policy}: 3 fit on node 0`);
    const six = m.admit(pod('more', [{ name: 'c', cpu: '1', memory: '1Gi' }]));
    // no CPU left: no hint; restricted and single-numa-node refuse the unaligned pod, best-effort tries and fails
    if (policy === 'best-effort')
      assert.deepEqual(six, {
        admit: false,
        reason: 'UnexpectedAdmissionError',
        message:
          'Allocate failed due to not enough cpus available to satisfy request: requested=1, available=0, which is unexpected',
      });
    else
      assert.deepEqual(six, {
        admit: false,
        reason: 'TopologyAffinityError',
        message: 'Resources cannot be allocated with Topology locality',
      });
  }
  const { build } = await setup(t);
  const single = await build(
    config({
      cpuManagerPolicy: 'static',
      reservedSystemCPUs: '0',
      topologyManagerPolicy: 'single-numa-node',
    }),
  );
  assert.deepEqual(single.admit(pod('wide', [{ name: 'c', cpu: '5', memory: '1Gi' }])), {
    admit: false,
    reason: 'TopologyAffinityError',
    message: 'Resources cannot be allocated with Topology locality',
  });
  const { build: b2 } = await setup(t);
  const restricted = await b2(
    config({
      cpuManagerPolicy: 'static',
      reservedSystemCPUs: '0',
      topologyManagerPolicy: 'restricted',
    }),
  );
  assert.deepEqual(restricted.admit(pod('wide', [{ name: 'c', cpu: '5', memory: '1Gi' }])), {
    admit: true,
  });
  assert.equal(restricted.cpu.assigned('wide', 'c')?.size, 5);
});

test('topology scope pod: the containers of a pod together must fit the policy', async (t) => {
  const two = [
    { name: 'a', cpu: '2', memory: '1Gi' },
    { name: 'b', cpu: '2', memory: '1Gi' },
  ];
  const { build } = await setup(t);
  const podScope = await build(
    config({
      cpuManagerPolicy: 'static',
      reservedSystemCPUs: '0',
      topologyManagerPolicy: 'single-numa-node',
      topologyManagerScope: 'pod',
    }),
  );
  assert.deepEqual(podScope.admit(pod('p', two)), { admit: true });
  assert.equal(
    podScope.cpu.assigned('p', 'a')?.union(podScope.cpu.assigned('p', 'b')!).toString(),
    '4-7',
    'both on node 1, the only one with 4 free',
  );
  assert.deepEqual(podScope.admit(pod('q', two)), {
    admit: false,
    reason: 'TopologyAffinityError',
    message: 'Resources cannot be allocated with Topology locality',
  });
  const { build: b2 } = await setup(t);
  const containerScope = await b2(
    config({
      cpuManagerPolicy: 'static',
      reservedSystemCPUs: '0',
      topologyManagerPolicy: 'single-numa-node',
    }),
  );
  assert.deepEqual(containerScope.admit(pod('p', two)), { admit: true });
  assert.deepEqual(
    containerScope.admit(pod('q', two)),
    {
      admit: false,
      reason: 'TopologyAffinityError',
      message: 'Resources cannot be allocated with Topology locality',
    },
    '3 CPUs left, 1 + 2 split over the nodes: b cannot align',
  );
});

test('memory manager Static: memory reserved per NUMA node, cpuset.mems, memory_manager_state; the policy refuses what no node holds', async (t) => {
  const { root, build } = await setup(t);
  const cfg = config({
    memoryManagerPolicy: 'Static',
    reservedMemory: [{ numaNode: 0, limits: { memory: '100Mi' } }],
    topologyManagerPolicy: 'single-numa-node',
  });
  const m = await build(cfg);
  const p = pod('m', [{ name: 'c', cpu: '1', memory: '3Gi' }]);
  assert.deepEqual(m.admit(p), { admit: true });
  assert.deepEqual(m.cpuset(p, p.spec.containers[0]!), { CpusetMems: '0' });
  assert.deepEqual(m.admit(pod('big', [{ name: 'c', cpu: '1', memory: '5Gi' }])), {
    admit: false,
    reason: 'TopologyAffinityError',
    message: 'Resources cannot be allocated with Topology locality',
  });
  await m.flush();
  const file = JSON.parse(await readFile(join(root, 'memory_manager_state'), 'utf8')) as {
    policyName: string;
    machineState: Record<
      string,
      { memoryMap: { memory: Record<string, number> }; numberOfAssignments: number }
    >;
    entries: unknown;
  };
  assert.equal(file.policyName, 'Static');
  assert.deepEqual(file.machineState['0']?.memoryMap.memory, {
    total: 4 * GI,
    systemReserved: 100 * 1024 * 1024,
    allocatable: 4 * GI - 100 * 1024 * 1024,
    reserved: 3 * GI,
    free: GI - 100 * 1024 * 1024,
  });
  assert.equal(file.machineState['0']?.numberOfAssignments, 1);
  assert.deepEqual(file.entries, {
    m: { c: [{ numaAffinity: [0], type: 'memory', size: 3 * GI }] },
  });
  // restricted: 5Gi spans both nodes
  const { build: b2 } = await setup(t);
  const wide = await b2({ ...cfg, topologyManagerPolicy: 'restricted' });
  const big = pod('big', [{ name: 'c', cpu: '1', memory: '5Gi' }]);
  assert.deepEqual(wide.admit(big), { admit: true });
  assert.deepEqual(wide.cpuset(big, big.spec.containers[0]!), { CpusetMems: '0,1' });
  assert.deepEqual(wide.memory.machineState().get(1)?.cells, [0, 1]);
});

test("start refuses a state file of another policy, an unknown option and a reservation off this host, with the reference's messages", async (t) => {
  const { root, build } = await setup(t);
  await (await build(config({}))).flush();
  assert.equal(
    await readFile(join(root, 'cpu_manager_state'), 'utf8'),
    '{"policyName":"none","defaultCpuSet":"","checksum":1353318690}',
  );
  const path = join(root, 'cpu_manager_state');
  await assert.rejects(
    () => build(config({ cpuManagerPolicy: 'static', reservedSystemCPUs: '0' })),
    {
      message: `start cpu manager error: could not restore state from checkpoint: configured policy "static" differs from state checkpoint policy "none", please drain this node and delete the CPU manager checkpoint file "${path}" before restarting Kubelet`,
    },
  );
  await writeFile(path, '{"policyName":"none","defaultCpuSet":"","checksum":7}');
  await assert.rejects(
    () => build(config({})),
    /could not restore state from checkpoint: checkpoint is corrupted/,
  );
  await writeFile(path, '{"policyName":');
  await assert.rejects(
    () => build(config({})),
    /could not restore state from checkpoint: .*please drain this node/,
  );
  await rm(path);
  await assert.rejects(
    () =>
      build(
        config({
          cpuManagerPolicy: 'static',
          reservedSystemCPUs: '0',
          cpuManagerPolicyOptions: { bogus: 'true' },
        }),
      ),
    {
      message: 'new static policy error: unknown CPU Manager Policy option: "bogus"',
    },
  );
  await assert.rejects(
    () =>
      build(
        config({
          cpuManagerPolicyOptions: { 'full-pcpus-only': 'true', 'align-by-socket': 'false' },
        }),
      ),
    {
      message:
        'new none policy error: None policy: received unsupported options=map[align-by-socket:false full-pcpus-only:true]',
    },
  );
  await assert.rejects(
    () => build(config({ cpuManagerPolicy: 'static', reservedSystemCPUs: '0-99999' })),
    {
      message:
        'invalid configuration: reservedSystemCPUs (--reserved-cpus) "0-99999": CPU id 99999 in "0-99999" is above 8191',
    },
  );
  await assert.rejects(() => build(config({ cpuManagerPolicy: 'static' })), {
    message:
      '[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero',
  });
  await assert.rejects(
    () =>
      build(
        config({
          memoryManagerPolicy: 'Static',
          reservedMemory: [{ numaNode: 3, limits: { memory: '100Mi' } }],
        }),
      ),
    {
      message:
        'the reserved memory configuration references a NUMA node 3 that does not exist on this machine',
    },
  );
  await assert.rejects(
    () =>
      build(
        config({
          memoryManagerPolicy: 'Static',
          reservedMemory: [
            { numaNode: 0, limits: { memory: '512Mi' } },
            { numaNode: 1, limits: { memory: '256Mi' } },
          ],
          systemReserved: { memory: '924Mi' },
        }),
      ),
    {
      message:
        'the total amount "768Mi" of type "memory" is not equal to the value "1Gi" determined by Node Allocatable feature',
    },
  );
  await assert.rejects(
    () =>
      build(
        config({
          topologyManagerPolicy: 'restricted',
          topologyManagerPolicyOptions: { 'max-allowable-numa-nodes': '2' },
        }),
      ),
    {
      message: 'the minimum value of "max-allowable-numa-nodes" should not be less than 8',
    },
  );
});

test('a static policy derived from system-reserved cpu reserves the lowest whole CPUs', async (t) => {
  const { build } = await setup(t);
  const m = await build(
    config({
      cpuManagerPolicy: 'static',
      systemReserved: { cpu: '500m' },
      platReserved: { cpu: '1' },
    }),
  );
  // ceil(1.5) = 2: the whole core 0,1
  assert.deepEqual(m.admit(pod('g', [{ name: 'c', cpu: '6', memory: '1Gi' }])), { admit: true });
  assert.equal(m.cpu.assigned('g', 'c')?.toString(), '2-7');
});

test('what the host cannot do is said once: process:// pins nothing, no NUMA in sysfs, one CPU', async (t) => {
  const { build } = await setup(t, { cpus: [{ id: 0, socket: 0, core: 0, numa: 0 }], memory: {} });
  const m = await build(
    config({
      cpuManagerPolicy: 'static',
      reservedSystemCPUs: '0',
      topologyManagerPolicy: 'restricted',
    }),
    'process',
  );
  const options = m.notes.map((n) => n.option);
  assert.deepEqual(options, [
    '--cpu-manager-policy=static',
    '--topology-manager-policy=restricted, --memory-manager-policy=None',
    '--cpu-manager-policy=static',
  ]);
  assert.match(m.notes[0]!.reason, /sched_setaffinity/);
  assert.match(m.notes[1]!.reason, /sysfs lists no NUMA nodes/);
  assert.match(m.notes[2]!.reason, /one CPU/);
  const { build: b2 } = await setup(t);
  const offline = await b2(config({ cpuManagerPolicy: 'static', reservedSystemCPUs: '0,12-13' }));
  assert.deepEqual(
    offline.notes.map((n) => [n.option, n.reason]),
    [['--reserved-cpus=0,12-13', 'CPUs 12-13 are not online on this host']],
  );
});

test('prefer-closest-numa-nodes picks the nearer pair of NUMA nodes; max-allowable-numa-nodes bounds the host', async (t) => {
  // 4 nodes of 2 CPUs; node 0 is near node 2 (11) and far from node 1 (30)
  const layout = {
    ...gridLayout(4, 2, 1, GI),
    distances: [
      [10, 30, 11, 30],
      [30, 10, 30, 11],
      [11, 30, 10, 30],
      [30, 11, 30, 10],
    ],
  };
  const { build } = await setup(t, layout);
  const near = await build(
    config({
      cpuManagerPolicy: 'static',
      reservedSystemCPUs: '7',
      topologyManagerPolicy: 'restricted',
      topologyManagerPolicyOptions: { 'prefer-closest-numa-nodes': 'true' },
    }),
  );
  assert.deepEqual(near.admit(pod('p', [{ name: 'c', cpu: '4', memory: '1Gi' }])), { admit: true });
  assert.equal(
    near.cpu.assigned('p', 'c')?.toString(),
    '0-1,4-5',
    'nodes 0 and 2 (distance 11), not 0 and 1',
  );
  const { build: b2 } = await setup(t, layout);
  const narrow = await b2(
    config({
      cpuManagerPolicy: 'static',
      reservedSystemCPUs: '7',
      topologyManagerPolicy: 'restricted',
    }),
  );
  assert.deepEqual(narrow.admit(pod('p', [{ name: 'c', cpu: '4', memory: '1Gi' }])), {
    admit: true,
  });
  assert.equal(
    narrow.cpu.assigned('p', 'c')?.toString(),
    '0-3',
    'without the option: the lowest pair, nodes 0 and 1',
  );
  const { build: b3 } = await setup(t, gridLayout(9, 1, 1, GI));
  await assert.rejects(() => b3(config({ topologyManagerPolicy: 'best-effort' })), {
    message: 'unsupported on machines with more than 8 NUMA Nodes',
  });
  assert.equal(
    (
      await b3(
        config({
          topologyManagerPolicy: 'best-effort',
          topologyManagerPolicyOptions: { 'max-allowable-numa-nodes': '9' },
        }),
      )
    ).notes.length,
    0,
  );
});

test('distribute-cpus-across-numa splits a two-node allocation evenly; align-by-socket prefers socket-aligned hints', async (t) => {
  const six = pod('six', [{ name: 'c', cpu: '6', memory: '1Gi' }]);
  const { build } = await setup(t, gridLayout(2, 4, 1, GI));
  const packed = await build(
    config({
      cpuManagerPolicy: 'static',
      reservedSystemCPUs: '0',
      topologyManagerPolicy: 'restricted',
    }),
  );
  assert.deepEqual(packed.admit(six), { admit: true });
  assert.equal(
    packed.cpu.assigned('six', 'c')?.toString(),
    '1-2,4-7',
    'packed: the whole socket 1, then 2 CPUs of node 0',
  );
  const { build: b2 } = await setup(t, gridLayout(2, 4, 1, GI));
  const spread = await b2(
    config({
      cpuManagerPolicy: 'static',
      reservedSystemCPUs: '0',
      topologyManagerPolicy: 'restricted',
      cpuManagerPolicyOptions: { 'distribute-cpus-across-numa': 'true' },
    }),
  );
  assert.deepEqual(spread.admit(six), { admit: true });
  assert.equal(
    spread.cpu.assigned('six', 'c')?.toString(),
    '1-6',
    '3 CPUs from each node: 1-3 and 4-6',
  );
  // 2 sockets of 2 NUMA nodes of 2 CPUs: 5 CPUs need 3 nodes, which span 2 sockets, as all 4 nodes do
  const layout = {
    cpus: Array.from({ length: 8 }, (_, id) => ({
      id,
      socket: Math.floor(id / 4),
      core: id,
      numa: Math.floor(id / 2),
    })),
    memory: { 0: GI, 1: GI, 2: GI, 3: GI },
  };
  const five = pod('five', [{ name: 'c', cpu: '5', memory: '1Gi' }]);
  const { build: b3 } = await setup(t, layout);
  const byNuma = await b3(config({ cpuManagerPolicy: 'static', reservedSystemCPUs: '7' }));
  const { build: b4 } = await setup(t, layout);
  const bySocket = await b4(
    config({
      cpuManagerPolicy: 'static',
      reservedSystemCPUs: '7',
      cpuManagerPolicyOptions: { 'align-by-socket': 'true' },
    }),
  );
  const wide = (m: ResourceManagers): boolean | undefined =>
    m.cpu
      .containerHints(five, five.spec.containers[0]!)
      ?.['cpu']?.find((h) => h.affinity?.length === 4)?.preferred;
  assert.equal(wide(byNuma), false);
  assert.equal(wide(bySocket), true);
});

test('strict-cpu-reservation keeps the reserved CPUs out of the shared pool too', async (t) => {
  const { build } = await setup(t);
  const m = await build(
    config({
      cpuManagerPolicy: 'static',
      reservedSystemCPUs: '0-1',
      cpuManagerPolicyOptions: { 'strict-cpu-reservation': 'true' },
    }),
  );
  const b = pod('b', [{ name: 'c', cpu: '100m', memory: '1Gi', guaranteed: false }]);
  assert.deepEqual(m.admit(b), { admit: true });
  assert.deepEqual(m.cpuset(b, b.spec.containers[0]!), { CpusetCpus: '2-7' });
});
