// What the host cannot do is said once at start, naming the option, the reason and the effect;
// Docker's cgroup driver must be the agent's, with the reference's refusal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { setupCgroups } from '../../../../src/agent/cgroups/setup.js';
import { checkDockerCgroupDriver } from '../../../../src/agent/cgroups/docker-driver.js';
import type { NodeCgroupsConfig } from '../../../../src/agent/cgroups/node-cgroups.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { fakeCgroupTree } from './fake-tree.js';

const CONFIG: NodeCgroupsConfig = {
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
};
const BASE = {
  runtimeCgroups: '',
  product: 'plat',
  limits: { enforceCpuLimits: true, cpuPeriodUs: 100_000, podPidsLimit: -1 },
  capacity: { cpu: 2, memory: 1024 ** 3, pid: 1000 },
};

test('no cgroup file system: --cgroups-per-qos says why and what it means, and no cgroup part is built', async () => {
  const s = await setupCgroups({
    ...BASE,
    config: CONFIG,
    logger: recordingLogger(),
    mount: '/nonexistent-cgroup-mount',
    version: 'unknown',
  });
  assert.equal(s.cgroups, undefined);
  assert.deepEqual(
    s.notes.map((n) => n.option),
    ['--cgroups-per-qos', '--enforce-node-allocatable', '--system-cgroups', '--nodeagent-cgroups'],
  );
  assert.equal(s.notes[0]?.reason, 'no cgroup file system is mounted at /nonexistent-cgroup-mount');
  assert.match(
    s.notes[0]?.effect ?? '',
    /^no cgroup is created or limited: pods run in the container runtime's default cgroups/,
  );
});

test('a cgroup mount the agent cannot write (not root): said once naming --cgroups-per-qos', async (t) => {
  if (process.getuid?.() === 0) {
    // root passes every permission check: a read-only mount is what stops it, shown with a missing controller dir instead
    const tree = await fakeCgroupTree('v1', ['memory']);
    t.after(() => tree.cleanup());
    const s = await setupCgroups({
      ...BASE,
      config: CONFIG,
      logger: recordingLogger(),
      mount: tree.mount,
      version: 'v1',
    });
    assert.equal(s.cgroups, undefined);
    assert.match(
      s.notes[0]?.reason ?? '',
      new RegExp(
        `^${join(tree.mount, 'cpu')} is not writable by the agent \\(ENOENT: run it as root on a read-write cgroup mount\\)$`,
      ),
    );
    return;
  }
  const tree = await fakeCgroupTree('v1');
  t.after(async () => {
    await chmod(join(tree.mount, 'cpu'), 0o755);
    await tree.cleanup();
  });
  await chmod(join(tree.mount, 'cpu'), 0o555);
  const s = await setupCgroups({
    ...BASE,
    config: CONFIG,
    logger: recordingLogger(),
    mount: tree.mount,
    version: 'v1',
  });
  assert.equal(s.cgroups, undefined);
  assert.match(s.notes[0]?.reason ?? '', /is not writable by the agent \(EACCES/);
});

test('cgroup v2 without the memory and pids controllers, the systemd driver and --runtime-cgroups are each said at start', async (t) => {
  const tree = await fakeCgroupTree('v2', ['cpu', 'io']);
  t.after(() => tree.cleanup());
  const s = await setupCgroups({
    ...BASE,
    runtimeCgroups: '/runtime',
    config: { ...CONFIG, cgroupDriver: 'systemd' },
    logger: recordingLogger(),
    mount: tree.mount,
    version: 'v2',
  });
  assert.ok(s.cgroups !== undefined);
  assert.deepEqual(
    s.notes.map((n) => n.option),
    ['--runtime-cgroups', '--cgroups-per-qos', '--cgroup-driver=systemd'],
  );
  assert.equal(
    s.notes[1]?.reason,
    `the cgroup v2 controllers memory, pids are not available at ${tree.mount}`,
  );
  assert.match(
    s.notes[0]?.reason ?? '',
    /names the runtime's cgroup only for the systemContainers of \/stats\/summary/,
  );
  const off = await setupCgroups({
    ...BASE,
    config: { ...CONFIG, cgroupsPerQOS: false, enforceNodeAllocatable: [] },
    logger: recordingLogger(),
    mount: tree.mount,
    version: 'v2',
  });
  assert.equal(
    off.cgroups,
    undefined,
    '--cgroups-per-qos=false and nothing else: no cgroup work at all',
  );
});

test("Docker's cgroup driver differs from --cgroup-driver: refused with the reference's message; the same driver starts", async () => {
  const docker = (driver: string) => ({
    type: 'docker',
    docker: { info: async () => ({ CgroupDriver: driver }) },
  });
  await assert.rejects(
    checkDockerCgroupDriver(docker('cgroupfs'), 'systemd', 'kubelet', recordingLogger()),
    {
      message:
        'misconfiguration: kubelet cgroup driver: "systemd" is different from docker cgroup driver: "cgroupfs"',
    },
  );
  const log = recordingLogger();
  await checkDockerCgroupDriver(docker('cgroupfs'), 'cgroupfs', 'platlet', log);
  assert.ok(log.lines.some((l) => l.msg === "the Docker engine uses the agent's cgroup driver"));
  await checkDockerCgroupDriver({ type: 'process' }, 'systemd', 'platlet', log);
});

test('--cgroups-per-qos=false with a --cgroup-root: Docker containers get the root as their cgroup parent; process:// moves nothing', async () => {
  const s = await setupCgroups({
    ...BASE,
    config: {
      ...CONFIG,
      cgroupsPerQOS: false,
      enforceNodeAllocatable: [],
      cgroupRoot: '/custom/pods',
    },
    logger: recordingLogger(),
    mount: '/nonexistent-cgroup-mount',
    version: 'unknown',
  });
  assert.equal(s.cgroups, undefined);
  const pod = {
    metadata: { name: 'p', namespace: 'ns', uid: 'u' },
    spec: { containers: [{ name: 'c' }] },
  };
  assert.equal(s.placement?.dockerParent(pod), '/custom/pods');
  assert.equal(s.placement?.processCgroup(pod), undefined);
  const none = await setupCgroups({
    ...BASE,
    config: { ...CONFIG, cgroupsPerQOS: false, enforceNodeAllocatable: [] },
    logger: recordingLogger(),
    mount: '/nonexistent-cgroup-mount',
    version: 'unknown',
  });
  assert.equal(none.placement, undefined, "no root: the runtime's default cgroup parent");
});
