// The static CPU manager on a real Docker engine: a Guaranteed pod asking for one whole CPU is
// pinned to a CPU of its own (HostConfig.CpusetCpus), a Burstable pod runs on the shared pool,
// and cpu_manager_state in the root directory lists the assignment as the reference writes it; the
// Static memory manager pins the Guaranteed pod's memory to NUMA node 0 (CpusetMems); the
// restricted topology policy refuses a pod whose CPUs cannot be had (TopologyAffinityError).
// This host has 2 CPUs: --reserved-cpus=0 leaves CPU 1 to give away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { ContainerInspectInfo } from 'dockerode';
import { dockerFromEndpoint } from '../../../../src/agent/runtime/docker/runtime.js';
import { LABELS } from '../../../../src/agent/runtime/types.js';
import { startInProcessAgent } from '../../../helpers/in-process-agent.js';
import { skipOutsideCi } from '../../../helpers/skip-outside-ci.js';
import { waitFor } from './agent-harness.js';
import { DOCKER_ENDPOINT, dockerSkipReason } from './runtimes.js';

const skip =
  (await dockerSkipReason()) ??
  (cpus().length < 2
    ? skipOutsideCi(
        '2 CPUs',
        'the static CPU manager keeps CPU 0 reserved and needs another to give away',
      )
    : undefined);
const NODE = `cpum-${randomBytes(3).toString('hex')}`;
const PREFIX = `${NODE}-`;

async function inspectOf(podName: string): Promise<ContainerInspectInfo | undefined> {
  const d = dockerFromEndpoint(DOCKER_ENDPOINT, 30_000);
  const list = await d.listContainers({
    filters: JSON.stringify({
      label: [`${LABELS.podName}=${podName}`, `${LABELS.kind}=app`],
      status: ['running'],
    }),
  });
  const id = list[0]?.Id;
  return id === undefined ? undefined : d.getContainer(id).inspect();
}

test(
  'static CPU manager on Docker: a Guaranteed pod gets an exclusive CPU (CpusetCpus), a Burstable one the shared pool; cpu_manager_state lists it',
  { skip, timeout: 120_000 },
  async (t) => {
    const a = await startInProcessAgent(t, {
      prefix: 'na-cpum',
      config: {
        containerRuntimeEndpoint: DOCKER_ENDPOINT,
        cpuManagerPolicy: 'static',
        reservedSystemCPUs: '0',
        cpuManagerReconcilePeriod: '1s',
        memoryManagerPolicy: 'Static',
        reservedMemory: [{ numaNode: 0, limits: { memory: '100Mi' } }],
        topologyManagerPolicy: 'restricted',
      },
      flags: { hostnameOverride: NODE },
      dockerPodPrefix: PREFIX,
    });
    const sleep = {
      image: 'busybox:local',
      imagePullPolicy: 'IfNotPresent',
      command: ['sleep', '300'],
    };
    const manifest = (name: string, resources: Record<string, unknown>): string =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `${PREFIX}${name}`, namespace: 'default' },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [{ name: 'c', ...sleep, resources }],
        },
      });
    // the Burstable pod first: it starts on every CPU, then the reconcile loop moves it to the pool
    await writeFile(
      join(a.manifests, 'burst.json'),
      manifest('burst', { requests: { cpu: '100m' } }),
    );
    const burst = await waitFor(
      'the Burstable container',
      () => inspectOf(`${PREFIX}burst-${NODE}`),
      60_000,
      200,
    );
    assert.equal(
      burst.HostConfig.CpusetCpus,
      '0-1',
      'the shared pool is every CPU while nothing is exclusive',
    );
    await writeFile(
      join(a.manifests, 'guar.json'),
      manifest('guar', { limits: { cpu: '1', memory: '64Mi' } }),
    );
    const guar = await waitFor(
      'the Guaranteed container',
      () => inspectOf(`${PREFIX}guar-${NODE}`),
      60_000,
      200,
    );
    assert.equal(guar.HostConfig.CpusetCpus, '1', 'CPU 1, the only one not reserved');
    assert.equal(
      guar.HostConfig.CpusetMems,
      '0',
      'the memory manager pins its memory to NUMA node 0',
    );
    const pool = await waitFor(
      'the reconcile loop to move the Burstable container',
      async () => {
        const b = await inspectOf(`${PREFIX}burst-${NODE}`);
        return b?.HostConfig.CpusetCpus === '0' ? b : undefined;
      },
      30_000,
      200,
    );
    assert.equal(pool.Id, burst.Id, 'the same container, updated in place');

    // two whole CPUs can never be had here (CPU 0 is reserved): restricted refuses it at admission
    await writeFile(
      join(a.manifests, 'big.json'),
      manifest('big', { limits: { cpu: '2', memory: '64Mi' } }),
    );
    const big = await waitFor(
      'the two-CPU pod to be refused',
      () => {
        const p = a
          .agent()
          ?.pods.pods()
          .find((x) => x.metadata.name === `${PREFIX}big-${NODE}`);
        const st = p?.status as { phase?: string; reason?: string; message?: string } | undefined;
        return st?.phase === 'Failed' ? st : undefined;
      },
      30_000,
      100,
    );
    assert.equal(big.reason, 'TopologyAffinityError');
    assert.equal(
      big.message,
      'Pod was rejected: Resources cannot be allocated with Topology locality',
    );

    const uid =
      a
        .agent()
        ?.pods.desiredPods()
        .find((p) => p.metadata.name === `${PREFIX}guar-${NODE}`)?.metadata.uid ?? '';
    const state = await waitFor(
      'the state file',
      async () => {
        const s = JSON.parse(await readFile(join(a.root, 'cpu_manager_state'), 'utf8')) as {
          policyName: string;
          defaultCpuSet: string;
          entries?: Record<string, Record<string, string>>;
          checksum: number;
        };
        return s.entries?.[uid] !== undefined ? s : undefined;
      },
      10_000,
      100,
    );
    assert.equal(state.policyName, 'static');
    assert.equal(state.defaultCpuSet, '0');
    assert.deepEqual(state.entries, { [uid]: { c: '1' } });
    assert.equal(typeof state.checksum, 'number');
    const mem = JSON.parse(await readFile(join(a.root, 'memory_manager_state'), 'utf8')) as {
      policyName: string;
      entries?: Record<string, Record<string, unknown>>;
    };
    assert.equal(mem.policyName, 'Static');
    assert.deepEqual(mem.entries?.[uid], {
      c: [{ numaAffinity: [0], type: 'memory', size: 64 * 1024 * 1024 }],
    });
  },
);
