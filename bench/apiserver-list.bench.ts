// Listing 10,000 events in pages of 500 (limit/continue, one consistent snapshot) through the
// public API, against the same number of GET /healthz round trips (20) measured in the same run;
// the figure is the cost per listed item. The events are created through the API first (16
// concurrent clients). Runs against any server (apiserver-target.ts); the reference's
// figure (a real kube-apiserver 1.32 with etcd) is 0.030 ms per item. The figure is the median of
// five full lists; the first of them is also given alone, as the cost of items never served
// before (each decoded and serialised, which --worker-threads does off the request thread).

import {
  concurrently,
  event,
  ms,
  percentile,
  positiveInt,
  runRounds,
  type Figure,
  type Session,
  firstThreadCpuMs,
} from './apiserver-harness.js';

const TOTAL = positiveInt('BENCH_LIST_TOTAL', process.env['BENCH_LIST_TOTAL'] ?? '10000');
const PAGE = 500;
const ROUNDS = 5;

async function fullList(s: Session, pageTimes: number[]): Promise<number> {
  const t = performance.now();
  let cont = '';
  let count = 0;
  do {
    const tp = performance.now();
    const res = await s.call(
      'GET',
      `/api/v1/namespaces/${s.namespace}/events?limit=${PAGE}${cont === '' ? '' : `&continue=${encodeURIComponent(cont)}`}`,
    );
    if (res.status !== 200) throw new Error(`list: ${res.status} ${res.text.slice(0, 300)}`);
    pageTimes.push(performance.now() - tp);
    const body = JSON.parse(res.text) as { items: unknown[]; metadata: { continue?: string } };
    count += body.items.length;
    cont = body.metadata.continue ?? '';
  } while (cont !== '');
  if (count < TOTAL) throw new Error(`listed ${count} of ${TOTAL}`);
  return performance.now() - t;
}

async function measure(s: Session): Promise<Figure[]> {
  await concurrently(TOTAL, 16, async (i) => {
    const r = await s.call(
      'POST',
      `/api/v1/namespaces/${s.namespace}/events`,
      event(`e${String(i).padStart(5, '0')}`, s.namespace),
    );
    if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text.slice(0, 300)}`);
  });
  const listTimes: number[] = [];
  const pageTimes: number[] = [];
  const pages = Math.ceil(TOTAL / PAGE);
  const health: number[] = [];
  let firstMainMs = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const [took, mainMs] = await firstThreadCpuMs(s, () => fullList(s, pageTimes));
    listTimes.push(took);
    if (r === 0) firstMainMs = mainMs;
    const t = performance.now();
    for (let i = 0; i < pages; i++) await s.call('GET', '/healthz');
    health.push(performance.now() - t);
  }
  const l50 = percentile(listTimes, 0.5);
  const h50 = percentile(health, 0.5);
  const first = listTimes[0] ?? 0;
  return [
    {
      name: 'list ms per item',
      value: l50 / TOTAL,
      unit: 'ms',
      text: `list ${TOTAL} events in pages of ${PAGE} (${pages} requests): median ${ms(l50)} per full list = ${(l50 / TOTAL).toFixed(4)} ms per item; page p50 ${ms(percentile(pageTimes, 0.5))}, p99 ${ms(percentile(pageTimes, 0.99))}`,
    },
    {
      name: 'first list ms per item',
      value: first / TOTAL,
      unit: 'ms',
      text: `  the first list, of items never served before: ${ms(first)} = ${(first / TOTAL).toFixed(4)} ms per item`,
    },
    {
      name: 'first list: first thread CPU ms per item',
      value: firstMainMs / TOTAL,
      unit: 'ms',
      text: `  the server's first thread (plat-apiserver's event loop) meanwhile: ${ms(firstMainMs)} of CPU`,
    },
    {
      name: 'healthz x pages',
      value: h50,
      unit: 'ms',
      text: `baseline ${pages} GET /healthz round trips: median ${ms(h50)}`,
    },
    {
      name: 'list / healthz',
      value: l50 / h50,
      unit: 'x',
      text: `ratio: ${(l50 / h50).toFixed(1)}x`,
    },
  ];
}

await runRounds('apiserver-list', 16, measure);
