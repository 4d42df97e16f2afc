// The hierarchy on the host's real cgroup v1 tree, under a unique --cgroup-root made and removed
// by the test: a process:// agent puts a Guaranteed pod's process in <root>/platpods/pod<uid>
// with the pod's limits in the kernel's files, BestEffort pods under besteffort, and removes the
// pod cgroup when the pod's manifest goes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startInProcessAgent } from '../../../helpers/in-process-agent.js';
import {
  makeTestCgroupRoot,
  processCgroup,
  realCgroupV1SkipReason,
} from '../../../helpers/real-cgroups.js';
import { waitFor } from '../pods/agent-harness.js';

const skip = await realCgroupV1SkipReason();

function manifest(name: string, resources: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'c', command: ['sleep', '300'], resources }],
    },
  });
}

async function read(path: string): Promise<string> {
  return (await readFile(path, 'utf8')).trim();
}

test(
  'real cgroup v1: a process:// Guaranteed pod runs in <root>/platpods/pod<uid> with its limits, BestEffort in besteffort; gone with the pod',
  { skip, timeout: 120_000 },
  async (t) => {
    const cg = await makeTestCgroupRoot();
    const a = await startInProcessAgent(t, {
      prefix: 'na-cg',
      config: {
        containerRuntimeEndpoint: 'process://',
        cgroupsPerQOS: true,
        enforceNodeAllocatable: ['pods'],
        cgroupRoot: cg.name,
        systemReserved: { memory: '100Mi' },
      },
      flags: { hostnameOverride: 'cg-node' },
      afterStop: () => cg.remove(),
    });
    await writeFile(
      join(a.manifests, 'g.json'),
      manifest('guar', { limits: { cpu: '500m', memory: '64Mi' } }),
    );
    await writeFile(join(a.manifests, 'be.json'), manifest('best', {}));
    const uidOf = (name: string) =>
      a
        .agent()
        ?.pods.desiredPods()
        .find((p) => p.metadata.name === `${name}-cg-node`)?.metadata.uid;
    const gUid = await waitFor('the Guaranteed pod', () => uidOf('guar'), 30_000, 100);
    const beUid = await waitFor('the BestEffort pod', () => uidOf('best'), 30_000, 100);
    const gDir = (c: string) => cg.dir(c, 'platpods', `pod${gUid}`);
    const procs = await waitFor(
      "the container's own process (sleep 300) in the Guaranteed pod cgroup",
      async () => {
        const p = (await readFile(join(gDir('cpu'), 'cgroup.procs'), 'utf8').catch(() => ''))
          .split('\n')
          .filter((l) => l !== '')
          .map(Number);
        const cmdlines = await Promise.all(
          p.map((x) => readFile(`/proc/${x}/cmdline`, 'utf8').catch(() => '')),
        );
        return cmdlines.includes('sleep\u0000300\u0000') ? p : undefined;
      },
      30_000,
      100,
    );
    for (const p of procs) {
      assert.equal(await processCgroup(p, 'cpu'), `${cg.name}/platpods/pod${gUid}`);
      assert.equal(await processCgroup(p, 'memory'), `${cg.name}/platpods/pod${gUid}`);
    }
    assert.equal(await read(join(gDir('cpu'), 'cpu.shares')), '512');
    assert.equal(await read(join(gDir('cpu'), 'cpu.cfs_quota_us')), '50000');
    assert.equal(await read(join(gDir('cpu'), 'cpu.cfs_period_us')), '100000');
    assert.equal(
      await read(join(gDir('memory'), 'memory.limit_in_bytes')),
      String(64 * 1024 * 1024),
    );
    assert.equal(await read(cg.dir('cpu', 'platpods', 'besteffort', 'cpu.shares')), '2');
    const total =
      Number(await read('/proc/meminfo').then((t) => /MemTotal:\s+(\d+)/.exec(t)?.[1] ?? '0')) *
      1024;
    // allocatable memory (capacity less --system-reserved), rounded down to the kernel's page size
    const limit = Number(await read(cg.dir('memory', 'platpods', 'memory.limit_in_bytes')));
    assert.ok(
      Math.abs(limit - (total - 100 * 1024 * 1024)) < 4096 * 2,
      `the pods' top-level memory limit ${limit} is allocatable`,
    );
    await waitFor(
      'a process in the BestEffort pod cgroup',
      async () =>
        (
          await readFile(
            cg.dir('cpu', 'platpods', 'besteffort', `pod${beUid}`, 'cgroup.procs'),
            'utf8',
          ).catch(() => '')
        ).trim() !== '',
      30_000,
      100,
    );
    await rm(join(a.manifests, 'g.json'));
    await waitFor(
      'the Guaranteed pod cgroup to be removed',
      () => !existsSync(gDir('cpu')) && !existsSync(gDir('memory')),
      30_000,
      100,
    );
    for (const p of procs)
      assert.ok(
        !existsSync(`/proc/${p}`) ||
          (await readFile(`/proc/${p}/stat`, 'utf8').catch(() => '')).includes(') Z'),
        `process ${p} is gone`,
      );
    assert.ok(
      existsSync(cg.dir('cpu', 'platpods', 'besteffort', `pod${beUid}`)),
      'the other pod keeps its cgroup',
    );
  },
);
