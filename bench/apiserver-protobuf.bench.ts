// Protobuf against JSON, same run, against the built plat-apiserver in its own process (so this
// process's CPU is the client's alone):
// 1. one list of 10,000 events (no paging): bytes on the wire, time to the last byte, the
//    client's decode time (JSON.parse of the text against the protobuf codec's generated
//    readers), and their sum (the time until the client holds the list: the figure "faster"
//    means), median of BENCH_PB_ROUNDS (9) alternating rounds;
// 2. the agent's REST client (src/agent/client) doing 1,000 pod status writes, as the agent does
//    them (merge PATCH of status: a JSON body in both modes, the answer a Pod in the negotiated
//    type) and as full PUTs of the status subresource (the body in the negotiated type too):
//    client CPU (user+system) and wall time per 1,000 writes, median of 5 alternating rounds
//    (after one warm-up round of each).

import { request } from 'undici';
import { startApiServer } from '../test/helpers/apiserver.js';
import { RestClient } from '../src/agent/client/rest-client.js';
import { createPodClient } from '../src/agent/client/typed-clients.js';
import { loadConnection } from '../src/common/platconfig/platconfig.js';
import { decodeEnvelope } from '../src/common/protobuf/codec.js';
import { readFileSync } from 'node:fs';
import { event, ms, percentile } from './apiserver-harness.js';

const loadavg = (): string =>
  readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const TOTAL = Number(process.env['BENCH_PB_EVENTS'] ?? 10_000);
const WRITES = Number(process.env['BENCH_PB_WRITES'] ?? 1_000);
const ROUNDS = Number(process.env['BENCH_PB_ROUNDS'] ?? 9);
const PB = 'application/vnd.kubernetes.protobuf';
const api = await startApiServer();

async function createEvents(): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < TOTAL; i = next++) {
      const r = await api.request('POST', '/api/v1/namespaces/default/events', {
        body: event(`e${String(i).padStart(5, '0')}`),
      });
      if (r.status !== 201)
        throw new Error(`creating event ${i}: ${r.status} ${r.text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

interface ListRound {
  bytes: number;
  fetchMs: number;
  decodeMs: number;
}

async function listOnce(accept: string): Promise<ListRound> {
  const t = performance.now();
  const res = await request(`${api.url}/api/v1/namespaces/default/events`, {
    headers: { accept },
    dispatcher: api.adminAgent,
  });
  const body = Buffer.from(await res.body.arrayBuffer());
  const fetchMs = performance.now() - t;
  const d = performance.now();
  const list = String(res.headers['content-type']).startsWith(PB)
    ? decodeEnvelope(body).object
    : (JSON.parse(body.toString('utf8')) as Record<string, unknown>);
  const decodeMs = performance.now() - d;
  const n = (list['items'] as unknown[]).length;
  if (n < TOTAL)
    throw new Error(`listed ${n} of ${TOTAL} (${String(res.headers['content-type'])})`);
  return { bytes: body.length, fetchMs, decodeMs };
}

async function listFigures(): Promise<void> {
  const rounds: Record<'json' | 'protobuf', ListRound[]> = { json: [], protobuf: [] };
  await listOnce('application/json');
  await listOnce(PB);
  console.log(`load average before the list rounds: ${loadavg()}`);
  for (let r = 0; r < ROUNDS; r++) {
    rounds.json.push(await listOnce('application/json'));
    rounds.protobuf.push(await listOnce(`${PB}, application/json`));
  }
  const total = (x: ListRound): number => x.fetchMs + x.decodeMs;
  const med = (xs: ListRound[], k: keyof ListRound | 'total'): number =>
    percentile(
      xs.map((x) => (k === 'total' ? total(x) : x[k])),
      0.5,
    );
  for (const f of ['json', 'protobuf'] as const) {
    console.log(
      `list ${TOTAL} events as ${f.padEnd(8)}: ${(med(rounds[f], 'bytes') / 1024).toFixed(0)} KiB, last byte ${ms(med(rounds[f], 'fetchMs'))}, client decode ${ms(med(rounds[f], 'decodeMs'))}, both ${ms(med(rounds[f], 'total'))}`,
    );
  }
  const ratio = (k: keyof ListRound | 'total'): string =>
    `${(med(rounds.protobuf, k) / med(rounds.json, k)).toFixed(2)}x`;
  // The same ratios round by round (each protobuf list against the JSON list just before it).
  const paired = (k: 'fetchMs' | 'decodeMs' | 'total'): string =>
    `${percentile(
      rounds.protobuf.map((p, i) => {
        const j = rounds.json[i];
        return j === undefined ? 1 : k === 'total' ? total(p) / total(j) : p[k] / j[k];
      }),
      0.5,
    ).toFixed(2)}x`;
  console.log(
    `protobuf/json (${ROUNDS} rounds): bytes ${ratio('bytes')}, last byte ${ratio('fetchMs')}, decode ${ratio('decodeMs')}, last byte + decode ${ratio('total')}`,
  );
  console.log(
    `protobuf/json, median of the rounds' own ratios: last byte ${paired('fetchMs')}, decode ${paired('decodeMs')}, last byte + decode ${paired('total')}`,
  );
  console.log(`load average after the list rounds: ${loadavg()}`);
}

function podStatus(i: number): Record<string, unknown> {
  return {
    phase: 'Running',
    conditions: [
      {
        type: 'Ready',
        status: i % 2 === 0 ? 'True' : 'False',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
    podIP: '10.0.0.5',
    podIPs: [{ ip: '10.0.0.5' }],
    startTime: '2026-01-01T00:00:00Z',
    containerStatuses: [
      {
        name: 'c',
        ready: i % 2 === 0,
        restartCount: i,
        image: 'busybox',
        imageID: 'docker://sha256:0',
        containerID: 'docker://abc',
        started: true,
        state: { running: { startedAt: '2026-01-01T00:00:01Z' } },
      },
    ],
    qosClass: 'BestEffort',
  };
}

async function writeFigures(): Promise<void> {
  const connection = await loadConnection(api.adminPlatconfig);
  const rest = {
    json: new RestClient({
      connection,
      contentType: 'application/json',
      qps: 100_000,
      burst: 100_000,
    }),
    protobuf: new RestClient({ connection, contentType: PB, qps: 100_000, burst: 100_000 }),
  };
  const clients = {
    json: createPodClient({ client: rest.json }),
    protobuf: createPodClient({ client: rest.protobuf }),
  };
  const create = await api.request('POST', '/api/v1/namespaces/default/pods', {
    body: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'bench-pod', labels: { app: 'bench' } },
      spec: {
        nodeName: 'n1',
        containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }],
      },
    },
  });
  if (create.status !== 201) throw new Error(`creating the pod: ${create.status}`);
  type Mode = 'patch' | 'put';
  const run = async (
    f: 'json' | 'protobuf',
    mode: Mode,
  ): Promise<{ cpu: number; wall: number }> => {
    const pods = clients[f];
    let current = await pods.get('bench-pod', { namespace: 'default' });
    const cpu0 = process.cpuUsage();
    const t = performance.now();
    for (let i = 0; i < WRITES; i++) {
      if (mode === 'patch')
        await pods.patch(
          'bench-pod',
          { status: podStatus(i) },
          { type: 'merge', subresource: 'status', namespace: 'default' },
        );
      else
        current = await pods.updateStatus({ ...current, status: podStatus(i) } as typeof current, {
          namespace: 'default',
        });
    }
    const wall = performance.now() - t;
    const c = process.cpuUsage(cpu0);
    return { cpu: (c.user + c.system) / 1000, wall };
  };
  console.log(`load average before the writes: ${loadavg()}`);
  for (const mode of ['patch', 'put'] as const) {
    const r: Record<'json' | 'protobuf', { cpu: number; wall: number }[]> = {
      json: [],
      protobuf: [],
    };
    await run('json', mode);
    await run('protobuf', mode);
    for (let k = 0; k < 5; k++) {
      r.json.push(await run('json', mode));
      r.protobuf.push(await run('protobuf', mode));
    }
    const med = (f: 'json' | 'protobuf', key: 'cpu' | 'wall'): number =>
      percentile(
        r[f].map((x) => x[key]),
        0.5,
      );
    const what =
      mode === 'patch' ? 'merge PATCH status (as the agent writes)' : 'PUT status (whole pod)';
    for (const f of ['json', 'protobuf'] as const)
      console.log(
        `${WRITES} pod status writes, ${what}, ${f.padEnd(8)}: client CPU ${ms(med(f, 'cpu'))}, wall ${ms(med(f, 'wall'))}`,
      );
    console.log(
      `protobuf/json (${mode}): client CPU ${(med('protobuf', 'cpu') / med('json', 'cpu')).toFixed(2)}x, wall ${(med('protobuf', 'wall') / med('json', 'wall')).toFixed(2)}x`,
    );
  }
  console.log(`load average after the writes: ${loadavg()}`);
  await Promise.all([rest.json.close(), rest.protobuf.close()]);
}

try {
  await createEvents();
  await listFigures();
  await writeFigures();
} finally {
  await api.stop();
}
