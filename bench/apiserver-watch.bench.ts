// Watch delivery latency to 100 and to 1,000 concurrent watchers (each its own HTTPS connection,
// watching the run's namespace's events from the list's resourceVersion): the time from sending
// a write to each watcher receiving its line, p50/p99 over every delivery, against the GET
// /healthz round trip p50/p99 measured in the same run. Runs against any server
// (apiserver-target.ts); the reference figure (a real kube-apiserver 1.32 with etcd) is
// p99 35 ms to 100 watchers.

import { request, type Agent } from 'undici';
import { event, ms, percentile, positiveInt, runRounds, type Figure, type Session } from './apiserver-harness.js';

const COUNTS = (process.env['BENCH_WATCHERS'] ?? '100,1000').split(',').map((n) => positiveInt('BENCH_WATCHERS', n));
const WRITES = positiveInt('BENCH_WATCH_WRITES', process.env['BENCH_WATCH_WRITES'] ?? '30');

interface Watchers {
  readonly delays: number[];
  readonly sentAt: Map<string, number>;
  close(): Promise<void>;
}

async function openWatchers(s: Session, agent: Agent, n: number, rv: string): Promise<Watchers> {
  const sentAt = new Map<string, number>();
  const delays: number[] = [];
  const aborts: AbortController[] = [];
  let ready = 0;
  const open = async (): Promise<void> => {
    const ac = new AbortController();
    aborts.push(ac);
    const res = await request(`${s.url}/api/v1/namespaces/${s.namespace}/events?watch=true&resourceVersion=${rv}`, { dispatcher: agent, signal: ac.signal, headers: s.headers });
    if (res.statusCode !== 200) throw new Error(`watch: ${res.statusCode} ${(await res.body.text()).slice(0, 300)}`);
    ready++;
    let buf = '';
    try {
      for await (const chunk of res.body) {
        const now = performance.now();
        buf += (chunk as Buffer).toString('utf8');
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          const name = /"name":"(w\d+)"/.exec(line)?.[1];
          const t = name === undefined ? undefined : sentAt.get(name);
          if (t !== undefined) delays.push(now - t);
        }
      }
    } catch {
      // aborted at the end
    }
  };
  // Connect in batches: 1,000 simultaneous TLS handshakes would only measure the handshake queue.
  const streams: Promise<void>[] = [];
  const deadline = Date.now() + 90_000;
  for (let i = 0; i < n; i += 50) {
    for (let j = i; j < Math.min(n, i + 50); j++) streams.push(open());
    const target = Math.min(n, i + 50);
    while (ready < target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  }
  const close = async (): Promise<void> => {
    for (const a of aborts) a.abort();
    await Promise.allSettled(streams);
  };
  if (ready < n) {
    await close();
    throw new Error(`only ${ready} of ${n} watchers connected`);
  }
  return { delays, sentAt, close };
}

async function deliver(s: Session, n: number): Promise<Figure[]> {
  const list = await s.call('GET', `/api/v1/namespaces/${s.namespace}/events`);
  if (list.status !== 200) throw new Error(`list: ${list.status} ${list.text.slice(0, 300)}`);
  const rv = (JSON.parse(list.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const w = await openWatchers(s, s.streamAgent(n + 10), n, rv);
  const health: number[] = [];
  try {
    for (let i = 0; i < WRITES; i++) {
      const t = performance.now();
      await s.call('GET', '/healthz');
      health.push(performance.now() - t);
      const name = `w${i}`;
      w.sentAt.set(name, performance.now());
      const r = await s.call('POST', `/api/v1/namespaces/${s.namespace}/events`, event(name, s.namespace));
      if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text.slice(0, 300)}`);
      const want = (i + 1) * n;
      const until = Date.now() + 20_000;
      while (w.delays.length < want && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    await w.close();
  }
  // The next count's watchers start after these events: delete them so the names repeat.
  const del = await s.call('DELETE', `/api/v1/namespaces/${s.namespace}/events`);
  if (del.status !== 200) throw new Error(`delete collection: ${del.status} ${del.text.slice(0, 300)}`);
  const d99 = percentile(w.delays, 0.99);
  const h99 = percentile(health, 0.99);
  return [
    { name: `watch p99 to ${n}`, value: d99, unit: 'ms', text: `watch delivery to ${n} watchers, ${WRITES} writes: ${w.delays.length}/${WRITES * n} deliveries, p50 ${ms(percentile(w.delays, 0.5))}, p99 ${ms(d99)}` },
    { name: `healthz p99 (${n})`, value: h99, unit: 'ms', text: `baseline GET /healthz round trip (same run): p50 ${ms(percentile(health, 0.5))}, p99 ${ms(h99)}` },
    { name: `delivery / healthz p99 (${n})`, value: d99 / h99, unit: 'x', text: `ratio delivery p99 / healthz p99: ${(d99 / h99).toFixed(1)}x` },
  ];
}

async function measure(s: Session): Promise<Figure[]> {
  const out: Figure[] = [];
  for (const n of COUNTS) out.push(...(await deliver(s, n)));
  return out;
}

await runRounds('apiserver-watch', 4, measure);
