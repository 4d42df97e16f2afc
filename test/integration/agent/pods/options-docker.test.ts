// The agent's container options on a real Docker engine: CFS quota/period (not NanoCpus), the
// pids limit, QoS oom_score_adj, the seccomp default, pod sysctls and the pod's resolv.conf, read
// back by inspecting the containers the agent made; a forbidden sysctl refused at admission.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContainerInspectInfo } from 'dockerode';
import { startInProcessAgent } from '../../../helpers/in-process-agent.js';
import { dockerFromEndpoint } from '../../../../src/agent/runtime/docker/runtime.js';
import { demuxDockerStream } from '../../../../src/agent/runtime/docker/convert.js';
import { LABELS } from '../../../../src/agent/runtime/types.js';
import { hasCapSysResource } from '../../../../src/agent/runtime/settings/from-config.js';
import { waitFor } from './agent-harness.js';
import { DOCKER_ENDPOINT, dockerSkipReason } from './runtimes.js';

const skip = await dockerSkipReason();
const NODE = `opts-${randomBytes(3).toString('hex')}`;
const PREFIX = `${NODE}-`;
/** The host resolv.conf the agent is given (written before the first pod, removed at the end). */
const RESOLV = join(tmpdir(), `${NODE}-host-resolv.conf`);

function manifest(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${PREFIX}${name}`, namespace: 'shop' },
    spec: { terminationGracePeriodSeconds: 1, ...spec },
  });
}

async function inspectOf(
  podName: string,
  kind: 'app' | 'sandbox',
): Promise<ContainerInspectInfo | undefined> {
  const d = dockerFromEndpoint(DOCKER_ENDPOINT, 30_000);
  const list = await d.listContainers({
    filters: JSON.stringify({
      label: [`${LABELS.podName}=${podName}`, `${LABELS.kind}=${kind}`],
      status: ['running'],
    }),
  });
  const id = list[0]?.Id;
  return id === undefined ? undefined : d.getContainer(id).inspect();
}

async function execIn(id: string, cmd: string[]): Promise<string> {
  const d = dockerFromEndpoint(DOCKER_ENDPOINT, 30_000);
  const ex = await d.getContainer(id).exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
  const stream = await ex.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (b: Buffer) => chunks.push(b));
    stream.on('end', () => resolve());
    stream.on('error', reject);
  });
  return demuxDockerStream(Buffer.concat(chunks));
}

test(
  'Docker containers carry the reference CPU, pids, oom, seccomp, sysctl and DNS settings',
  { skip, timeout: 120_000 },
  async (t) => {
    await writeFile(RESOLV, 'nameserver 192.0.2.53\nsearch corp.example\n');
    const a = await startInProcessAgent(t, {
      prefix: 'na-opts',
      config: {
        containerRuntimeEndpoint: DOCKER_ENDPOINT,
        clusterDNS: ['10.0.0.10'],
        clusterDomain: 'cluster.local',
        resolvConf: RESOLV,
        podPidsLimit: 64,
        allowedUnsafeSysctls: ['kernel.msg*'],
      },
      flags: { hostnameOverride: NODE },
      dockerPodPrefix: PREFIX,
      afterStop: () => rm(RESOLV, { force: true }),
    });
    const sleep = {
      image: 'busybox:local',
      imagePullPolicy: 'IfNotPresent',
      command: ['sleep', '300'],
    };
    await writeFile(
      join(a.manifests, 'burst.json'),
      manifest('burst', {
        securityContext: {
          sysctls: [
            { name: 'net.ipv4.ip_unprivileged_port_start', value: '80' },
            { name: 'kernel.msgmax', value: '65536' },
          ],
        },
        dnsConfig: { options: [{ name: 'edns0' }] },
        containers: [
          {
            name: 'c',
            ...sleep,
            resources: { limits: { cpu: '500m' }, requests: { cpu: '250m', memory: '64Mi' } },
          },
        ],
      }),
    );
    await writeFile(
      join(a.manifests, 'guar.json'),
      manifest('guar', {
        containers: [
          {
            name: 'c',
            ...sleep,
            resources: { limits: { cpu: '1', memory: '64Mi' } },
            securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
          },
        ],
      }),
    );
    await writeFile(
      join(a.manifests, 'bad.json'),
      manifest('bad', {
        securityContext: { sysctls: [{ name: 'kernel.sem', value: '1 2 3 4' }] },
        containers: [{ name: 'c', ...sleep }],
      }),
    );

    const burstName = `${PREFIX}burst-${NODE}`;
    const burst = await waitFor(
      'the Burstable container',
      () => inspectOf(burstName, 'app'),
      60_000,
      200,
    );
    assert.equal(burst.HostConfig.CpuQuota, 50000, '500m over the 100ms period');
    assert.equal(burst.HostConfig.CpuPeriod, 100000);
    assert.equal(burst.HostConfig.NanoCpus ?? 0, 0);
    assert.equal(burst.HostConfig.CpuShares, 256);
    assert.equal(burst.HostConfig.PidsLimit, 64);
    assert.deepEqual(
      burst.HostConfig.SecurityOpt,
      ['seccomp=unconfined'],
      'no --seccomp-default and nothing in the pod: Unconfined',
    );
    assert.deepEqual(
      (burst.HostConfig as { Sysctls?: Record<string, string> }).Sysctls,
      { 'kernel.msgmax': '65536' },
      'IPC sysctls on the container',
    );
    const sandbox = await waitFor(
      'the sandbox',
      () => inspectOf(burstName, 'sandbox'),
      30_000,
      200,
    );
    assert.deepEqual((sandbox.HostConfig as { Sysctls?: Record<string, string> }).Sysctls, {
      'net.ipv4.ip_unprivileged_port_start': '80',
      'kernel.msgmax': '65536',
    });
    assert.equal(
      await execIn(burst.Id, ['cat', '/etc/resolv.conf']),
      'nameserver 10.0.0.10\nsearch shop.svc.cluster.local svc.cluster.local cluster.local corp.example\noptions ndots:5 edns0\n',
    );
    assert.equal(
      (await execIn(burst.Id, ['cat', '/proc/sys/net/ipv4/ip_unprivileged_port_start'])).trim(),
      '80',
    );
    const memMiB = (await import('node:os')).totalmem();
    const expectedAdj = 1000 - Math.trunc((1000 * 64 * 1024 * 1024) / memMiB);
    assert.equal(
      (await execIn(burst.Id, ['cat', '/proc/1/oom_score_adj'])).trim(),
      String(Math.max(3, expectedAdj === 1000 ? 999 : expectedAdj)),
    );

    const guar = await waitFor(
      'the Guaranteed container',
      () => inspectOf(`${PREFIX}guar-${NODE}`, 'app'),
      60_000,
      200,
    );
    // -997 as the reference; a host without CAP_SYS_RESOURCE cannot go below 0, which the agent says at start
    const want = hasCapSysResource() ? '-997' : '0';
    assert.equal(String(guar.HostConfig.OomScoreAdj), want);
    assert.equal((await execIn(guar.Id, ['cat', '/proc/1/oom_score_adj'])).trim(), want);
    if (want === '0')
      assert.ok(
        a.log.lines.some(
          (l) =>
            l.fields['reason'] ===
            'this host does not let the agent lower oom_score_adj (no CAP_SYS_RESOURCE)',
        ),
      );
    assert.equal(guar.HostConfig.CpuQuota, 100000);
    // memorySwap "" (NoSwap): no swap on top of the memory limit (Docker alone would allow as much again)
    assert.equal(guar.HostConfig.Memory, 64 * 1024 * 1024);
    assert.equal(guar.HostConfig.MemorySwap, 64 * 1024 * 1024);
    assert.deepEqual(
      guar.HostConfig.SecurityOpt ?? [],
      [],
      "RuntimeDefault: Docker's default profile",
    );

    const bad = await waitFor(
      'the forbidden sysctl to be refused',
      () => {
        const p = a
          .agent()
          ?.pods.pods()
          .find((x) => x.metadata.name === `${PREFIX}bad-${NODE}`);
        const st = p?.status as { phase?: string; reason?: string; message?: string } | undefined;
        return st?.phase === 'Failed' ? st : undefined;
      },
      30_000,
      100,
    );
    assert.equal(bad.reason, 'SysctlForbidden');
    assert.equal(bad.message, 'Pod was rejected: forbidden sysctl: "kernel.sem" not allowlisted');
  },
);
