// The Docker part of the streaming benchmark: exec round trip through the agent's SPDY endpoint
// (TLS, upgrade, streams, `true`, the v4 Status) against `docker exec <container> true` on the
// same busybox container, interleaved. Without an engine (or busybox:local) it says so.

import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DockerRuntime, dockerFromEndpoint } from '../src/agent/runtime/docker/runtime.js';
import { RuntimeStreaming } from '../src/agent/server/streaming-adapters.js';
import { silentLogger } from '../src/common/log/types.js';
import { systemClock } from '../src/common/util/clock.js';
import type { Pod } from '../src/agent/pod/types.js';
import { startServerFixture, type ServerCerts } from '../test/helpers/server-fixture.js';
import { openExecStreams, readAll, spdyUpgrade } from '../test/helpers/spdy-client.js';

const ENDPOINT = process.env['NODEAGENT_TEST_DOCKER_ENDPOINT'] ?? 'unix:///var/run/docker.sock';
const p50 = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function cliExec(id: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const c = spawn('docker', ['exec', id, 'true'], { stdio: 'ignore' });
    c.once('error', reject);
    c.once('close', (code) =>
      code === 0
        ? resolve(performance.now() - t0)
        : reject(new Error(`docker exec exited with ${code}`)),
    );
  });
}

export async function dockerExecLatency(o: { execs: number; certs: ServerCerts }): Promise<string> {
  try {
    const d = dockerFromEndpoint(ENDPOINT, 3000);
    await d.ping();
    await d.getImage('busybox:local').inspect();
  } catch (err) {
    return `docker exec comparison: skipped: no Docker engine with busybox:local at ${ENDPOINT} (${(err as Error).message})`;
  }
  const pod: Pod = {
    metadata: {
      name: 'bench-docker',
      namespace: 'default',
      uid: `bench${process.pid}`.padEnd(32, '0'),
    },
    spec: { containers: [{ name: 'c', image: 'busybox:local', command: ['sleep', '600'] }] },
  };
  const root = await mkdtemp(join(tmpdir(), 'na-bench-docker-'));
  const runtime = new DockerRuntime({
    endpoint: ENDPOINT,
    requestTimeoutMs: 60_000,
    serializeImagePulls: true,
    registryPullQPS: 5,
    registryBurst: 10,
    rootDir: root,
    logger: silentLogger(),
    clock: systemClock,
  });
  const ids: string[] = [];
  const f = await startServerFixture({
    certs: o.certs,
    anonymous: false,
    authorization: { mode: 'AlwaysAllow' },
    streaming: new RuntimeStreaming({
      runtime,
      pods: { pods: () => [pod as Pod & { metadata: { uid: string; namespace: string } }] },
    }),
  });
  try {
    const sb = await runtime.runPodSandbox({ pod, attempt: 0 });
    ids.push(sb);
    const cid = await runtime.createContainer({
      pod,
      container: pod.spec.containers[0]!,
      kind: 'app',
      attempt: 0,
      specHash: 'h',
      sandboxId: sb,
      volumePaths: {},
    });
    ids.push(cid);
    await runtime.startContainer(cid);
    const tls = { ca: o.certs.ca.certPem, cert: o.certs.alice.certPem, key: o.certs.alice.keyPem };
    const agentExec = async (): Promise<number> => {
      const t0 = performance.now();
      const r = await spdyUpgrade({
        url: `${f.base}/exec/default/bench-docker/c?command=true&output=1`,
        protocols: ['v4.channel.k8s.io'],
        ...tls,
      });
      if (r.kind !== 'upgraded') throw new Error(`exec refused: ${r.status} ${r.body}`);
      const s = await openExecStreams(r.session, ['stdout']);
      const [status] = await Promise.all([readAll(s.get('error')!), readAll(s.get('stdout')!)]);
      if (!status.includes('Success')) throw new Error(`exec failed: ${status}`);
      return performance.now() - t0;
    };
    await agentExec();
    await cliExec(cid);
    const viaAgent: number[] = [];
    const viaCli: number[] = [];
    for (let i = 0; i < o.execs; i++) {
      viaAgent.push(await agentExec());
      viaCli.push(await cliExec(cid));
    }
    return `Docker exec round trip through the agent (SPDY, TLS): p50 ${p50(viaAgent).toFixed(1)} ms; \`docker exec <id> true\` p50 ${p50(viaCli).toFixed(1)} ms; ratio ${(p50(viaAgent) / p50(viaCli)).toFixed(2)}x (${o.execs} each, interleaved)`;
  } finally {
    await f.stop();
    const d = dockerFromEndpoint(ENDPOINT, 30_000);
    for (const id of ids.reverse())
      await d
        .getContainer(id)
        .remove({ force: true })
        .catch(() => undefined);
    await runtime.close();
    await rm(root, { recursive: true, force: true });
  }
}
