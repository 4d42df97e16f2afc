// Listing 10,000 events in pages of 500 (limit/continue, one consistent snapshot), against the
// same number of GET /healthz round trips (20) measured in the same run.

import { benchServer, event, ms, percentile } from './apiserver-harness.js';

const TOTAL = Number(process.env['BENCH_LIST_TOTAL'] ?? 10_000);
const PAGE = 500;
const s = await benchServer();
try {
  const def = s.running.server.defs.event;
  const user = { username: 'bench', groups: ['system:masters'] };
  for (let i = 0; i < TOTAL; i++) {
    await s.running.server.registry.create(def, 'default', event(`e${String(i).padStart(5, '0')}`), { user, dryRun: false, fieldManager: 'bench', subresource: '' });
  }
  const rounds = 5;
  const listTimes: number[] = [];
  const pageTimes: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    let cont = '';
    let count = 0;
    do {
      const tp = performance.now();
      const res = await s.call('GET', `/api/v1/namespaces/default/events?limit=${PAGE}${cont === '' ? '' : `&continue=${encodeURIComponent(cont)}`}`);
      pageTimes.push(performance.now() - tp);
      const body = JSON.parse(res.text) as { items: unknown[]; metadata: { continue?: string } };
      count += body.items.length;
      cont = body.metadata.continue ?? '';
    } while (cont !== '');
    if (count < TOTAL) throw new Error(`listed ${count} of ${TOTAL}`);
    listTimes.push(performance.now() - t);
  }
  const pages = Math.ceil(TOTAL / PAGE);
  const health: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    for (let i = 0; i < pages; i++) await s.call('GET', '/healthz');
    health.push(performance.now() - t);
  }
  const l50 = percentile(listTimes, 0.5);
  const h50 = percentile(health, 0.5);
  console.log(`list ${TOTAL} events in pages of ${PAGE} (${pages} requests): median ${ms(l50)} per full list, page p50 ${ms(percentile(pageTimes, 0.5))}, p99 ${ms(percentile(pageTimes, 0.99))}`);
  console.log(`baseline ${pages} GET /healthz round trips: median ${ms(h50)}`);
  console.log(`ratio: ${(l50 / h50).toFixed(1)}x`);
} finally {
  await s.close();
}
