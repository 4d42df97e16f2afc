// CSR create+get latency (p50/p99): POST a CertificateSigningRequest then GET it, sequentially,
// over keep-alive HTTPS as an admin, against the GET /healthz round trip over the same
// connections measured in the same run. Runs against any server (apiserver-target.ts); the
// reference's figure (a real kube-apiserver 1.32 with etcd on this kind of machine) is
// p50 8.1 ms.

import {
  latencies,
  ms,
  percentile,
  positiveInt,
  runRounds,
  type Figure,
  type Session,
} from './apiserver-harness.js';
import { makeCsrPem } from '../test/helpers/apiserver-fixtures.js';

const N = positiveInt('BENCH_REQUESTS', process.env['BENCH_REQUESTS'] ?? '300');
// Each turn of this build starts a new server, while the reference's has run for as long as the
// session: V8 reaches its steady code for a create and a get after several hundred pairs (p50
// 1.87 ms after 200 untimed pairs, 1.53 ms after 1,000, same build and machine), so the turn
// runs 1,000 before it measures.
const WARM = 1000;

/** Distinct requests (each its own key), base64 as spec.request carries them. */
async function makeRequests(n: number, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++)
    out.push(
      Buffer.from((await makeCsrPem({ cn: `${prefix}-${i}`, orgs: ['bench'] })).csrPem).toString(
        'base64',
      ),
    );
  return out;
}

// A distinct request per CSR, as distinct nodes send: nothing is parsed twice across requests,
// nor between the warm-up and the measured pairs. Made once, before any server is measured.
const requests = await makeRequests(N, 'bench');
const warmRequests = await makeRequests(WARM, 'warm');

/** CSR create then get of `request` under `name`. */
async function createAndGet(s: Session, name: string, request: string | undefined): Promise<void> {
  const base = `/apis/${s.certificatesGroup}/v1/certificatesigningrequests`;
  const body = {
    apiVersion: `${s.certificatesGroup}/v1`,
    kind: 'CertificateSigningRequest',
    metadata: { name, labels: { 'bench-run': s.runId } },
    spec: {
      request,
      signerName: 'example.com/bench',
      usages: ['digital signature', 'client auth'],
    },
  };
  const c = await s.call('POST', base, body);
  if (c.status !== 201) throw new Error(`create: ${c.status} ${c.text.slice(0, 300)}`);
  const g = await s.call('GET', `${base}/${name}`);
  if (g.status !== 200) throw new Error(`get: ${g.status} ${g.text.slice(0, 300)}`);
}

/** Untimed: the same pairs with requests of their own, so both sides run warm. */
async function warmUp(s: Session): Promise<void> {
  for (let i = 0; i < WARM; i++) await createAndGet(s, `warm-${s.runId}-${i}`, warmRequests[i]);
}

async function measure(s: Session): Promise<Figure[]> {
  for (let i = 0; i < 20; i++) await s.call('GET', '/healthz');
  const health = await latencies(N, async () => {
    if ((await s.call('GET', '/healthz')).status !== 200) throw new Error('healthz failed');
  });
  const csr = await latencies(N, async (i) => {
    await createAndGet(s, `bench-${s.runId}-${i}`, requests[i]);
  });
  const h50 = percentile(health, 0.5);
  const c50 = percentile(csr, 0.5);
  const c99 = percentile(csr, 0.99);
  return [
    {
      name: 'CSR create+get p50',
      value: c50,
      unit: 'ms',
      text: `CSR create+get (n=${N}): p50 ${ms(c50)}, p99 ${ms(c99)}`,
    },
    {
      name: 'CSR create+get p99',
      value: c99,
      unit: 'ms',
      text: `baseline GET /healthz round trip: p50 ${ms(h50)}, p99 ${ms(percentile(health, 0.99))}`,
    },
    {
      name: 'create+get / healthz p50',
      value: c50 / h50,
      unit: 'x',
      text: `ratio create+get / healthz: p50 ${(c50 / h50).toFixed(1)}x, p99 ${(c99 / percentile(health, 0.99)).toFixed(1)}x`,
    },
  ];
}

await runRounds('apiserver-csr', 8, measure, warmUp);
