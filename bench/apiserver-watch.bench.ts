// Watch delivery latency with 1,000 concurrent watchers (each its own HTTPS connection): the
// time from sending a write to each watcher receiving its line, p50/p99 over every delivery,
// against the GET /healthz round trip p50/p99 measured in the same run.

import { Agent, request } from 'undici';
import { benchServer, event, ms, percentile } from './apiserver-harness.js';
import { loadConnection } from '../src/common/platconfig/platconfig.js';

const WATCHERS = Number(process.env['BENCH_WATCHERS'] ?? 1000);
const WRITES = Number(process.env['BENCH_WATCH_WRITES'] ?? 30);
const s = await benchServer([], 4);
const conn = await loadConnection(s.running.adminPlatconfig);
const watchAgent = new Agent({ connect: { ca: conn.caPem ?? '', cert: conn.certPem ?? '', key: conn.keyPem ?? '', timeout: 120_000 }, connections: WATCHERS + 10, pipelining: 0, headersTimeout: 120_000, bodyTimeout: 0 });
const sentAt = new Map<string, number>();
const delays: number[] = [];
const aborts: AbortController[] = [];
let ready = 0;
try {
  const list = JSON.parse((await s.call('GET', '/api/v1/namespaces/default/events')).text) as { metadata: { resourceVersion: string } };
  const rv = list.metadata.resourceVersion;
  const open = async (): Promise<void> => {
    const ac = new AbortController();
    aborts.push(ac);
    const res = await request(`${s.url}/api/v1/namespaces/default/events?watch=true&resourceVersion=${rv}`, { dispatcher: watchAgent, signal: ac.signal });
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
  for (let i = 0; i < WATCHERS; i += 50) {
    for (let j = i; j < Math.min(WATCHERS, i + 50); j++) streams.push(open());
    const target = Math.min(WATCHERS, i + 50);
    while (ready < target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  }
  if (ready < WATCHERS) throw new Error(`only ${ready} watchers connected`);
  const health: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const t = performance.now();
    await s.call('GET', '/healthz');
    health.push(performance.now() - t);
    const name = `w${i}`;
    sentAt.set(name, performance.now());
    const r = await s.call('POST', '/api/v1/namespaces/default/events', event(name));
    if (r.status !== 201) throw new Error(`create: ${r.status}`);
    const want = (i + 1) * WATCHERS;
    const until = Date.now() + 20_000;
    while (delays.length < want && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
  }
  const expected = WRITES * WATCHERS;
  console.log(`watch delivery to ${WATCHERS} watchers, ${WRITES} writes: ${delays.length}/${expected} deliveries, p50 ${ms(percentile(delays, 0.5))}, p99 ${ms(percentile(delays, 0.99))}`);
  console.log(`baseline GET /healthz round trip (same run): p50 ${ms(percentile(health, 0.5))}, p99 ${ms(percentile(health, 0.99))}`);
  console.log(`ratio delivery p99 / healthz p99: ${(percentile(delays, 0.99) / percentile(health, 0.99)).toFixed(1)}x`);
  for (const a of aborts) a.abort();
  await Promise.allSettled(streams);
} finally {
  for (const a of aborts) a.abort();
  await watchAgent.close().catch(() => undefined);
  await s.close();
}
