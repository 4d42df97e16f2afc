// CSR create+get latency (p50/p99) through HTTPS with a client certificate, against the GET
// /healthz round trip over the same connections measured in the same run.

import { benchServer, latencies, ms, percentile } from './apiserver-harness.js';
import { makeCsrPem } from '../test/helpers/apiserver-fixtures.js';

const N = Number(process.env['BENCH_REQUESTS'] ?? 300);
const s = await benchServer();
try {
  // A distinct request (its own key) per CSR, as distinct nodes send: nothing is parsed twice
  // across requests.
  const requests: string[] = [];
  for (let i = 0; i < N; i++) requests.push(Buffer.from((await makeCsrPem({ cn: `bench-${i}`, orgs: ['bench'] })).csrPem).toString('base64'));
  const base = '/apis/certificates.platform.io/v1/certificatesigningrequests';
  for (let i = 0; i < 20; i++) await s.call('GET', '/healthz');
  const health = await latencies(N, async () => {
    if ((await s.call('GET', '/healthz')).status !== 200) throw new Error('healthz failed');
  });
  const csr = await latencies(N, async (i) => {
    const c = await s.call('POST', base, { apiVersion: 'certificates.platform.io/v1', kind: 'CertificateSigningRequest', metadata: { name: `b${i}` }, spec: { request: requests[i], signerName: 'example.com/bench', usages: ['digital signature', 'client auth'] } });
    if (c.status !== 201) throw new Error(`create: ${c.status} ${c.text}`);
    const g = await s.call('GET', `${base}/b${i}`);
    if (g.status !== 200) throw new Error(`get: ${g.status}`);
  });
  const h50 = percentile(health, 0.5);
  const c50 = percentile(csr, 0.5);
  console.log(`CSR create+get (n=${N}): p50 ${ms(c50)}, p99 ${ms(percentile(csr, 0.99))}`);
  console.log(`baseline GET /healthz round trip: p50 ${ms(h50)}, p99 ${ms(percentile(health, 0.99))}`);
  console.log(`ratio create+get / healthz: p50 ${(c50 / h50).toFixed(1)}x, p99 ${(percentile(csr, 0.99) / percentile(health, 0.99)).toFixed(1)}x`);
} finally {
  await s.close();
}
