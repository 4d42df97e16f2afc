// --cgroups-per-qos on a real Docker engine, under a unique --cgroup-root on the host's cgroup v1
// tree and the reference's names (--platform-profile=kubernetes): a Guaranteed pod's containers sit
// in <root>/kubepods/pod<uid>, a BestEffort pod's in <root>/kubepods/besteffort/pod<uid> (read from
// /proc/<pid>/cgroup of the container's process), the pod limits are in the cgroup files, and the
// pod cgroup is gone once the pod is deleted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dockerFromEndpoint } from '../../../../src/agent/runtime/docker/runtime.js';
import { LABELS } from '../../../../src/agent/runtime/types.js';
import { startInProcessAgent } from '../../../helpers/in-process-agent.js';
import {
  makeTestCgroupRoot,
  processCgroup,
  realCgroupV1SkipReason,
} from '../../../helpers/real-cgroups.js';
import { waitFor } from './agent-harness.js';
import { DOCKER_ENDPOINT, dockerSkipReason } from './runtimes.js';

const skip = (await dockerSkipReason()) ?? (await realCgroupV1SkipReason());
const NODE = `cg-${randomBytes(3).toString('hex')}`;

async function appPid(
  podName: string,
): Promise<{ pid: number; id: string; parent: string } | undefined> {
  const d = dockerFromEndpoint(DOCKER_ENDPOINT, 30_000);
  const list = await d.listContainers({
    filters: JSON.stringify({
      label: [`${LABELS.podName}=${podName}`, `${LABELS.kind}=app`],
      status: ['running'],
    }),
  });
  const id = list[0]?.Id;
  if (id === undefined) return undefined;
  const info = await d.getContainer(id).inspect();
  return info.State.Pid > 0
    ? { pid: info.State.Pid, id, parent: info.HostConfig.CgroupParent ?? '' }
    : undefined;
}

test(
  'Docker: a Guaranteed pod in <root>/kubepods/pod<uid>, a BestEffort pod in <root>/kubepods/besteffort/pod<uid>, with the pod limits; the pod cgroup goes with the pod',
  { skip, timeout: 150_000 },
  async (t) => {
    const cg = await makeTestCgroupRoot();
    const a = await startInProcessAgent(t, {
      prefix: 'na-cgd',
      config: {
        containerRuntimeEndpoint: DOCKER_ENDPOINT,
        platformProfile: 'kubernetes',
        cgroupsPerQOS: true,
        enforceNodeAllocatable: ['pods'],
        cgroupRoot: cg.name,
        podPidsLimit: 50,
      },
      flags: { hostnameOverride: NODE },
      dockerPodPrefix: `${NODE}-`,
      afterStop: () => cg.remove(),
    });
    const pod = (name: string, resources: Record<string, unknown>) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `${NODE}-${name}`, namespace: 'default' },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'c',
              image: 'busybox:local',
              imagePullPolicy: 'IfNotPresent',
              command: ['sleep', '300'],
              resources,
            },
          ],
        },
      });
    await writeFile(
      join(a.manifests, 'g.json'),
      pod('guar', { limits: { cpu: '250m', memory: '48Mi' } }),
    );
    await writeFile(join(a.manifests, 'be.json'), pod('best', {}));
    const uidOf = (name: string) =>
      a
        .agent()
        ?.pods.desiredPods()
        .find((p) => p.metadata.name === `${NODE}-${name}-${NODE}`)?.metadata.uid;
    const gUid = await waitFor('the Guaranteed pod', () => uidOf('guar'), 30_000, 100);
    const beUid = await waitFor('the BestEffort pod', () => uidOf('best'), 30_000, 100);
    const g = await waitFor(
      'the Guaranteed container',
      () => appPid(`${NODE}-guar-${NODE}`),
      90_000,
      200,
    );
    assert.equal(g.parent, `${cg.name}/kubepods/pod${gUid}`, 'HostConfig.CgroupParent');
    for (const c of ['cpu', 'memory', 'pids'])
      assert.equal(
        await processCgroup(g.pid, c),
        `${cg.name}/kubepods/pod${gUid}/${g.id}`,
        `${c} cgroup of the container's process`,
      );
    const be = await waitFor(
      'the BestEffort container',
      () => appPid(`${NODE}-best-${NODE}`),
      90_000,
      200,
    );
    assert.equal(
      await processCgroup(be.pid, 'cpu'),
      `${cg.name}/kubepods/besteffort/pod${beUid}/${be.id}`,
    );
    const gDir = (c: string, f: string) => cg.dir(c, 'kubepods', `pod${gUid}`, f);
    const read = async (p: string) => (await readFile(p, 'utf8')).trim();
    assert.equal(await read(gDir('cpu', 'cpu.shares')), '256');
    assert.equal(await read(gDir('cpu', 'cpu.cfs_quota_us')), '25000');
    assert.equal(await read(gDir('memory', 'memory.limit_in_bytes')), String(48 * 1024 * 1024));
    assert.equal(await read(gDir('pids', 'pids.max')), '50', '--pod-max-pids on the pod cgroup');
    assert.equal(
      await read(cg.dir('cpu', 'kubepods', 'besteffort', `pod${beUid}`, 'cpu.shares')),
      '2',
    );
    assert.ok(
      a.log.lines.some((l) => l.msg === "the Docker engine uses the agent's cgroup driver"),
    );
    await rm(join(a.manifests, 'g.json'));
    // in every hierarchy, those Docker alone made (blkio, devices, freezer) too
    const hierarchies = await readdir('/sys/fs/cgroup');
    await waitFor(
      'the Guaranteed pod cgroup to be removed',
      () => hierarchies.every((h) => !existsSync(cg.dir(h, 'kubepods', `pod${gUid}`))),
      60_000,
      200,
    );
    assert.ok(existsSync(cg.dir('cpu', 'kubepods', 'besteffort', `pod${beUid}`)));
  },
);
