// The cost of the volumes a cluster gives its pods: 30 pods created at once through plat-apiserver
// (kubernetes profile, default admission), each with a ConfigMap volume, a Secret volume and the
// projected service-account token volume the ServiceAccount plugin adds (kube-api-access-*:
// TokenRequest, kube-root-ca.crt, the namespace), against the same 30 pods with no volume at all
// (automountServiceAccountToken: false), measured in the same run, alternating, on the built
// plat-apiserver and an in-process agent on Docker. Per pod: creation (the POST answered) to phase
// Running as the API server shows it (polled every 50 ms); the figures are p50 and p99 per round
// and the time until all 30 run. BENCH_VOLUME_PODS (default 30), BENCH_VOLUME_ROUNDS (default 2).
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { runAgent } from '../src/agent/start/agent.js';
import { silentLogger } from '../src/common/log/types.js';
import { isRecord, listOf } from '../src/common/util/json-shape.js';
import { systemMounter } from '../src/agent/volume/mounts.js';
import {
  startApiServer,
  writeTokenPlatconfig,
  type StartedApiServer,
} from '../test/helpers/apiserver.js';
import {
  tempDir,
  testConfig,
  testFlags,
  waitFor,
} from '../test/integration/agent/pods/agent-harness.js';
import {
  DOCKER_ENDPOINT,
  dockerSkipReason,
  removeDockerPodsNamed,
} from '../test/integration/agent/pods/runtimes.js';

const PODS = Number(process.env['BENCH_VOLUME_PODS'] ?? 30);
const ROUNDS = Number(process.env['BENCH_VOLUME_ROUNDS'] ?? 2);
const POLL_MS = 50;

type Kind = 'none' | 'volumes';

function podBody(name: string, kind: Kind): unknown {
  const container = { name: 'c', image: 'busybox:local', command: ['sleep', '3600'] };
  if (kind === 'none')
    return {
      metadata: { name },
      spec: {
        automountServiceAccountToken: false,
        terminationGracePeriodSeconds: 1,
        containers: [container],
      },
    };
  return {
    metadata: { name },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          ...container,
          volumeMounts: [
            { name: 'config', mountPath: '/etc/config' },
            { name: 'secret', mountPath: '/etc/secret' },
          ],
        },
      ],
      volumes: [
        { name: 'config', configMap: { name: 'bench-config' } },
        { name: 'secret', secret: { secretName: 'bench-secret' } },
      ],
    },
  };
}

const pct = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] ?? 0;
};

/** The names of the namespace's pods in phase Running. */
async function runningPods(api: StartedApiServer, ns: string): Promise<Set<string>> {
  const r = await api.request('GET', `/api/v1/namespaces/${ns}/pods`);
  const names = new Set<string>();
  for (const item of listOf(isRecord(r.json) ? r.json['items'] : undefined)) {
    if (!isRecord(item) || !isRecord(item['status']) || !isRecord(item['metadata'])) continue;
    if (item['status']['phase'] === 'Running') names.add(String(item['metadata']['name']));
  }
  return names;
}

interface Round {
  kind: Kind;
  perPodMs: number[];
  allMs: number;
}

async function round(api: StartedApiServer, ns: string, kind: Kind, n: number): Promise<Round> {
  // pod names start with the namespace, which starts with the node's name (see clean-up)
  const created = new Map<string, number>();
  const runningAt = new Map<string, number>();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const name = `${ns}-${kind}-${n}-${i}`;
      const r = await api.request('POST', `/api/v1/namespaces/${ns}/pods`, {
        body: podBody(name, kind),
      });
      if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.text}`);
      created.set(name, performance.now());
    }),
  );
  while (runningAt.size < n) {
    if (performance.now() - t0 > 300_000) throw new Error(`${kind}: ${runningAt.size}/${n} ran`);
    const now = performance.now();
    for (const name of await runningPods(api, ns))
      if (!runningAt.has(name)) runningAt.set(name, now);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const allMs = Math.max(...runningAt.values()) - t0;
  const perPodMs = [...runningAt].map(([name, at]) => at - (created.get(name) ?? t0));
  await api.request('DELETE', `/api/v1/namespaces/${ns}/pods`);
  await waitFor(
    'the pods gone',
    async () => {
      const r = await api.request('GET', `/api/v1/namespaces/${ns}/pods`);
      return listOf(isRecord(r.json) ? r.json['items'] : undefined).length === 0 ? true : undefined;
    },
    120_000,
    250,
  );
  return { kind, perPodMs, allMs };
}

async function prepareNamespace(api: StartedApiServer, ns: string): Promise<void> {
  const post = async (path: string, body: unknown): Promise<void> => {
    const r = await api.request('POST', path, { body });
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  };
  await post('/api/v1/namespaces', { metadata: { name: ns } });
  await waitFor('the default ServiceAccount', async () => {
    const r = await api.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
    return r.status === 200 ? true : undefined;
  });
  await post(`/api/v1/namespaces/${ns}/configmaps`, {
    metadata: { name: 'bench-config' },
    data: { 'app.properties': 'mode=bench\n' },
  });
  await post(`/api/v1/namespaces/${ns}/secrets`, {
    metadata: { name: 'bench-secret' },
    stringData: { password: 'not-a-real-one' },
  });
}

function report(rounds: readonly Round[]): void {
  const line = (r: Round): string =>
    `${r.kind.padEnd(8)} p50 ${pct(r.perPodMs, 0.5).toFixed(0)} ms, p99 ${pct(r.perPodMs, 0.99).toFixed(0)} ms, all ${r.allMs.toFixed(0)} ms`;
  for (const r of rounds) console.log(line(r));
  const of = (k: Kind): number[] => rounds.filter((r) => r.kind === k).flatMap((r) => r.perPodMs);
  const ratio = (p: number): string => (pct(of('volumes'), p) / pct(of('none'), p)).toFixed(2);
  console.log(
    `volume cost over ${ROUNDS} rounds of ${PODS} pods: p50 ${ratio(0.5)}x, p99 ${ratio(0.99)}x ` +
      `(configMap + secret + projected token against none); load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
}

async function main(): Promise<void> {
  const skip = await dockerSkipReason();
  if (skip !== undefined) {
    console.log(`pod-volume-cost: skipped, ${String(skip)}`);
    return;
  }
  const dir = await tempDir('na-bench-vol-');
  const node = `bv-${randomBytes(3).toString('hex')}`;
  const ns = `${node}-ns`;
  const token = randomBytes(16).toString('hex');
  const tokens = join(dir.path, 'tokens.csv');
  await writeFile(tokens, `${token},system:node:${node},uid-${node},"system:nodes"\n`);
  const api = await startApiServer({
    args: ['--platform-profile=kubernetes', `--token-auth-file=${tokens}`],
  });
  const ac = new AbortController();
  let agent: Promise<number> | undefined;
  try {
    await prepareNamespace(api, ns);
    const platconfig = await writeTokenPlatconfig(join(dir.path, 'node.platconfig'), api, token);
    const root = join(dir.path, 'root');
    agent = runAgent({
      config: testConfig(root, {
        containerRuntimeEndpoint: DOCKER_ENDPOINT,
        platformProfile: 'kubernetes',
      }),
      flags: testFlags(root, { hostnameOverride: node, platconfig, nodeIP: '127.0.0.1' }),
      logger: silentLogger(),
      signal: ac.signal,
    });
    // a warm-up pod of each kind, so neither round pays the first pull or the first token
    await round(api, ns, 'none', 1);
    await round(api, ns, 'volumes', 1);
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++)
      for (const kind of ['none', 'volumes'] as const)
        rounds.push(await round(api, ns, kind, PODS));
    report(rounds);
  } finally {
    ac.abort();
    await agent?.catch(() => 1);
    await removeDockerPodsNamed(`${node}-`).catch(() => undefined);
    const m = systemMounter();
    for (const p of await m.mountsUnder(dir.path)) await m.unmount(p).catch(() => undefined);
    await api.stop();
    await dir.cleanup();
  }
}

await main();
