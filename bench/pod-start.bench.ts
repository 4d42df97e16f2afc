// Manifest written → container running (as the agent reports it), p50 and p95, on process://
// and on Docker, each as a ratio to the runtime's own create+start of the same container
// measured in the same run (Docker: dockerode create+start of busybox; process://: spawning the
// same command). Target: at most 1.2x + 50 ms.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgent, type Agent } from '../src/agent/start/agent.js';
import { defaultConfiguration } from '../src/agent/config/defaults.js';
import type { NodeAgentFlags } from '../src/agent/config/flags-type.js';
import { silentLogger } from '../src/common/log/types.js';
import { dockerFromEndpoint } from '../src/agent/runtime/docker/runtime.js';
import { LABELS } from '../src/agent/runtime/types.js';

const N = Number(process.env['BENCH_PODS'] ?? 15);
const DOCKER = process.env['NODEAGENT_TEST_DOCKER_ENDPOINT'] ?? 'unix:///var/run/docker.sock';

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
};
const fmt = (ms: number): string => `${ms.toFixed(1)} ms`;

function flags(rootDir: string): NodeAgentFlags {
  return {
    config: '',
    configDir: '',
    platconfig: '',
    bootstrapPlatconfig: '',
    certDir: join(rootDir, 'pki'),
    rootDir,
    hostnameOverride: 'bench',
    nodeIP: '',
    nodeLabels: {},
    runtimeCgroups: '',
    cloudProvider: '',
    lockFile: '',
    exitOnLockContention: false,
    imageCredentialProviderConfig: '',
    imageCredentialProviderBinDir: '',
    experimentalAllocatableIgnoreEviction: false,
    experimentalMounterPath: '',
    maximumDeadContainers: -1,
    maximumDeadContainersPerContainer: 1,
    minimumContainerTTLDuration: '0s',
    podInfraContainerImage: '',
  };
}

async function agentLatencies(
  endpoint: string,
  manifest: (i: number) => string,
): Promise<number[]> {
  const root = await mkdtemp(join(tmpdir(), 'na-bench-'));
  const dir = await mkdtemp(join(tmpdir(), 'na-bench-m-'));
  const ac = new AbortController();
  let agent: Agent | undefined;
  const config = {
    ...defaultConfiguration('flags'),
    staticPodPath: dir,
    containerRuntimeEndpoint: endpoint,
    fileCheckFrequency: '20s',
    enableServer: false,
    healthzPort: 0,
    readOnlyPort: 0,
    cgroupsPerQOS: false,
    enforceNodeAllocatable: [],
    podLogsDir: join(root, 'pod-logs'),
  };
  const running = runAgent({
    config,
    flags: flags(root),
    logger: silentLogger(),
    signal: ac.signal,
    onBuilt: (a) => (agent = a),
  });
  const out: number[] = [];
  try {
    while (agent === undefined) await new Promise((r) => setTimeout(r, 10));
    const a = agent as Agent;
    await a.runtime.waitReady(ac.signal);
    await new Promise((r) => setTimeout(r, 300));
    for (let i = 0; i < N; i++) {
      const file = join(dir, `p${i}.json`);
      const seen = new Promise<number>((resolve) => {
        a.statuses.onChange((pod, st) => {
          if (pod.metadata.name === `bench-${i}-bench` && st.containerStatuses[0]?.state.running)
            resolve(performance.now());
        });
      });
      const t0 = performance.now();
      await writeFile(file, manifest(i));
      out.push((await seen) - t0);
      await unlink(file);
    }
    // let the agent remove the pods before stopping it
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (await a.runtime.runtime.listContainers()).length > 0)
      await new Promise((r) => setTimeout(r, 100));
  } finally {
    ac.abort();
    await running.catch(() => 1);
    await rm(root, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  }
  return out;
}

async function processBaseline(): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const c = spawn('/bin/sh', ['-c', 'exec sleep 30'], { detached: true, stdio: 'ignore' });
    await new Promise((r) => c.once('spawn', r));
    out.push(performance.now() - t0);
    process.kill(-(c.pid as number), 'SIGKILL');
  }
  return out;
}

/** The engine's own time for what a pod needs: a sandbox, then a container joining its network. */
async function dockerBaseline(): Promise<{ pod: number[]; single: number[] }> {
  const d = dockerFromEndpoint(DOCKER, 60_000);
  const pod: number[] = [];
  const single: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const sb = await d.createContainer({
      Image: 'busybox:local',
      Cmd: ['sleep', '30'],
      Labels: { 'io.nodeagent.bench': 'baseline' },
      HostConfig: { Init: true },
    });
    await sb.start();
    const t1 = performance.now();
    const c = await d.createContainer({
      Image: 'busybox:local',
      Cmd: ['sleep', '30'],
      Labels: { 'io.nodeagent.bench': 'baseline' },
      HostConfig: { Init: true, NetworkMode: `container:${sb.id}` },
    });
    await c.start();
    const t2 = performance.now();
    pod.push(t2 - t0);
    single.push(t1 - t0);
    await c.remove({ force: true });
    await sb.remove({ force: true });
  }
  return { pod, single };
}

function report(name: string, agent: number[], base: number[]): void {
  const [a50, a95, b50, b95] = [pct(agent, 0.5), pct(agent, 0.95), pct(base, 0.5), pct(base, 0.95)];
  const target50 = 1.2 * b50 + 50;
  console.log(`${name}: manifest → running p50 ${fmt(a50)} p95 ${fmt(a95)} (n=${agent.length})`);
  console.log(`${name}: runtime create+start baseline p50 ${fmt(b50)} p95 ${fmt(b95)}`);
  console.log(
    `${name}: ratio p50 ${(a50 / b50).toFixed(2)}x, p95 ${(a95 / b95).toFixed(2)}x; target 1.2x + 50 ms = ${fmt(target50)} at p50: ${a50 <= target50 ? 'met' : 'NOT met'}`,
  );
}

const procJson = (i: number): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `bench-${i}` },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'c', command: ['sleep', '30'] }],
    },
  });
report('process://', await agentLatencies('process://', procJson), await processBaseline());

let dockerOk = true;
try {
  await dockerFromEndpoint(DOCKER, 3000).ping();
} catch {
  dockerOk = false;
  console.log(`docker: skipped (no engine at ${DOCKER}; scripts/docker-engine.sh start)`);
}
if (dockerOk) {
  const dockerJson = (i: number): string =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `bench-${i}` },
      spec: {
        terminationGracePeriodSeconds: 1,
        containers: [
          { name: 'c', image: 'busybox:local', imagePullPolicy: 'Never', command: ['sleep', '30'] },
        ],
      },
    });
  const base = await dockerBaseline();
  const agent = await agentLatencies(DOCKER, dockerJson);
  report('docker', agent, base.pod);
  console.log(
    `docker: (the baseline is the engine creating+starting a sandbox and a container joining it, as a pod needs; one container alone: p50 ${fmt(pct(base.single, 0.5))})`,
  );
  // leftovers of an interrupted run
  const d = dockerFromEndpoint(DOCKER, 30_000);
  for (const c of await d.listContainers({
    all: true,
    filters: JSON.stringify({ label: [`${LABELS.podName}`] }),
  })) {
    if ((c.Labels[LABELS.podName] ?? '').startsWith('bench-'))
      await d.getContainer(c.Id).remove({ force: true });
  }
}
