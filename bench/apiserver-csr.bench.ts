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

// A distinct request (its own key) per CSR, as distinct nodes send: nothing is parsed twice
// across requests. Made once, before any server is measured.
const requests: string[] = [];
for (let i = 0; i < N; i++)
  requests.push(
    Buffer.from((await makeCsrPem({ cn: `bench-${i}`, orgs: ['bench'] })).csrPem).toString(
      'base64',
    ),
  );

async function measure(s: Session): Promise<Figure[]> {
  const base = `/apis/${s.certificatesGroup}/v1/certificatesigningrequests`;
  for (let i = 0; i < 20; i++) await s.call('GET', '/healthz');
  const health = await latencies(N, async () => {
    if ((await s.call('GET', '/healthz')).status !== 200) throw new Error('healthz failed');
  });
  const csr = await latencies(N, async (i) => {
    const name = `bench-${s.runId}-${i}`;
    const body = {
      apiVersion: `${s.certificatesGroup}/v1`,
      kind: 'CertificateSigningRequest',
      metadata: { name, labels: { 'bench-run': s.runId } },
      spec: {
        request: requests[i],
        signerName: 'example.com/bench',
        usages: ['digital signature', 'client auth'],
      },
    };
    const c = await s.call('POST', base, body);
    if (c.status !== 201) throw new Error(`create: ${c.status} ${c.text.slice(0, 300)}`);
    const g = await s.call('GET', `${base}/${name}`);
    if (g.status !== 200) throw new Error(`get: ${g.status} ${g.text.slice(0, 300)}`);
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

await runRounds('apiserver-csr', 8, measure);
