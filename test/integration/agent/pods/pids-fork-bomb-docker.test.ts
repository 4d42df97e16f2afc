// --pod-max-pids on a real Docker engine against a fork bomb: the
// container's forks stop at the limit in its pids cgroup, and the node is unharmed: the host still
// forks, a pod that was running keeps running and a pod written after the bomb still starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContainerInspectInfo } from 'dockerode';
import { startInProcessAgent } from '../../../helpers/in-process-agent.js';
import { dockerFromEndpoint } from '../../../../src/agent/runtime/docker/runtime.js';
import { LABELS } from '../../../../src/agent/runtime/types.js';
import { waitFor } from './agent-harness.js';
import { DOCKER_ENDPOINT, dockerSkipReason } from './runtimes.js';

const skip = await dockerSkipReason();
const NODE = `pids-${randomBytes(3).toString('hex')}`;
const PREFIX = `${NODE}-`;
const LIMIT = 24;

function manifest(name: string, command: string[]): string {
  const container = { name: 'c', image: 'busybox:local', imagePullPolicy: 'IfNotPresent', command };
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${PREFIX}${name}`, namespace: 'default' },
    spec: { terminationGracePeriodSeconds: 1, containers: [container] },
  });
}

async function running(podName: string): Promise<ContainerInspectInfo | undefined> {
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

/** The pids cgroup directory of a process, cgroup v1 (`N:pids:/path`) or v2 (`0::/path`). */
async function pidsCgroupOf(pid: number): Promise<string> {
  const lines = (await readFile(`/proc/${String(pid)}/cgroup`, 'utf8')).split('\n');
  const v1 = lines.find((l) => l.split(':')[1]?.split(',').includes('pids'));
  if (v1 !== undefined) return join('/sys/fs/cgroup/pids', v1.split(':')[2] ?? '');
  const v2 = lines.find((l) => l.startsWith('0::'));
  assert.ok(v2 !== undefined, `no pids cgroup for pid ${String(pid)}: ${lines.join(' | ')}`);
  return join('/sys/fs/cgroup', v2.slice(3));
}

async function readNumber(file: string): Promise<number> {
  return Number((await readFile(file, 'utf8')).trim());
}

test(
  '--pod-max-pids: a fork bomb in a container stops at the limit; the host, a running pod and a new pod are unharmed',
  { skip, timeout: 180_000 },
  async (t) => {
    const a = await startInProcessAgent(t, {
      prefix: 'na-pids',
      config: { containerRuntimeEndpoint: DOCKER_ENDPOINT, podPidsLimit: LIMIT },
      flags: { hostnameOverride: NODE },
      dockerPodPrefix: PREFIX,
    });
    await writeFile(join(a.manifests, 'witness.json'), manifest('witness', ['sleep', '600']));
    const witness = await waitFor(
      'the witness pod',
      () => running(`${PREFIX}witness-${NODE}`),
      60_000,
      200,
    );

    // 400 background forks asked for, in a subshell (a shell that cannot fork gives up): the limit
    // keeps all but LIMIT of them from happening; the container's main process then stays.
    await writeFile(
      join(a.manifests, 'bomb.json'),
      manifest('bomb', [
        'sh',
        '-c',
        '(i=0; while [ $i -lt 400 ]; do sleep 600 & i=$((i+1)); done) 2>/dev/null; exec sleep 600',
      ]),
    );
    const bomb = await waitFor(
      'the bomb container',
      () => running(`${PREFIX}bomb-${NODE}`),
      60_000,
      200,
    );
    assert.equal(bomb.HostConfig.PidsLimit, LIMIT);
    const cg = await pidsCgroupOf(bomb.State.Pid);
    assert.equal((await readFile(join(cg, 'pids.max'), 'utf8')).trim(), String(LIMIT));
    const refused = await waitFor(
      'a fork refused at the limit (pids.events)',
      async () => {
        const n = Number(
          /max (\d+)/.exec(await readFile(join(cg, 'pids.events'), 'utf8'))?.[1] ?? 0,
        );
        return n > 0 ? n : undefined;
      },
      60_000,
      200,
    );
    assert.ok(refused >= 1);
    const current = await readNumber(join(cg, 'pids.current'));
    // the subshell gives up at its first refused fork: its sleeps and the main process stay
    assert.ok(
      current <= LIMIT && current >= LIMIT - 1,
      `processes in the container: ${String(current)} (limit ${String(LIMIT)})`,
    );

    // the node: the host forks, the witness runs on, a pod written now starts
    assert.equal(spawnSync('true').status, 0, 'the host can still fork');
    const still = await running(`${PREFIX}witness-${NODE}`);
    assert.equal(still?.Id, witness.Id, 'the witness container was not restarted');
    await writeFile(join(a.manifests, 'after.json'), manifest('after', ['sleep', '600']));
    await waitFor(
      'a pod written after the bomb',
      () => running(`${PREFIX}after-${NODE}`),
      60_000,
      200,
    );

    // and the bomb goes with its pod
    await unlink(join(a.manifests, 'bomb.json'));
    await waitFor(
      'the bomb removed',
      async () => (await running(`${PREFIX}bomb-${NODE}`)) === undefined,
      60_000,
      200,
    );
  },
);
