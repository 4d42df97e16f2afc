// Watch delivery latency to 100 and to 1,000 concurrent watchers (each its own HTTPS connection,
// watching the run's namespace's events from the list's resourceVersion): the time from sending a
// write to each watcher receiving its line, p50/p99 over every delivery, against the GET /healthz
// round trip p50/p99 measured in the same run. The watchers live in a process of their own
// (watch-readers.ts), so the benchmark's own event loop, which sends the writes, does not also
// parse every line of every watcher; both clock the same monotonic clock. Each set of watchers
// first gets untimed writes of its own (BENCH_WATCH_WARM_WRITES), so the figure is not the readers'
// process compiling its code; then BENCH_WATCH_WRITES timed writes, one at a time. A write reaches
// every watcher at about the same time, so the p99 of the deliveries is the p99 of the writes:
// with 30 writes it was the slowest one, with 200 (the default) the second or third slowest. Runs
// against any server (apiserver-target.ts).

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { ReaderSettings } from './watch-readers.js';
import {
  event,
  ms,
  percentile,
  positiveInt,
  runRounds,
  type Figure,
  type Session,
} from './apiserver-harness.js';

const COUNTS = (process.env['BENCH_WATCHERS'] ?? '100,1000')
  .split(',')
  .map((n) => positiveInt('BENCH_WATCHERS', n));
const WRITES = positiveInt('BENCH_WATCH_WRITES', process.env['BENCH_WATCH_WRITES'] ?? '200');
const WARM_WRITES = positiveInt(
  'BENCH_WATCH_WARM_WRITES',
  process.env['BENCH_WATCH_WARM_WRITES'] ?? '30',
);

interface Watchers {
  /** When each write was sent (process.hrtime, ms), by event name. */
  readonly sentAt: Map<string, number>;
  /** Resolves once every watcher has received the named event (false after 20 s). */
  delivered(name: string): Promise<boolean>;
  /** Ends the watchers; the delivery delays of every event sent. */
  close(): Promise<number[]>;
}

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * Starts the watchers in their own process (watch-readers.ts) and waits until all are connected.
 */
async function openWatchers(s: Session, n: number, rv: string): Promise<Watchers> {
  const c = spawn(process.execPath, [new URL('./watch-readers.js', import.meta.url).pathname], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const e = s.endpoint;
  const settings: ReaderSettings = {
    url: `${s.url}/api/v1/namespaces/${s.namespace}/events?watch=true&resourceVersion=${rv}`,
    n,
    ...definedOnly({
      ca: e.ca,
      cert: e.cert,
      key: e.key,
      token: e.token,
      servername: e.servername,
    }),
  };
  c.stdin.write(`${JSON.stringify(settings)}\n`);
  const exited = new Promise<void>((resolve) => c.once('close', () => resolve()));
  const got = new Set<string>();
  const waiters = new Map<string, () => void>();
  let ready = false;
  let last = '';
  let onReady: (() => void) | undefined;
  createInterface({ input: c.stdout }).on('line', (line) => {
    if (line === 'ready') {
      ready = true;
      onReady?.();
    } else if (line.startsWith('got ')) {
      const name = line.slice(4);
      got.add(name);
      waiters.get(name)?.();
    } else last = line;
  });
  await Promise.race([
    new Promise<void>((resolve) => (onReady = resolve)),
    exited,
    new Promise((r) => setTimeout(r, 90_000).unref()),
  ]);
  if (!ready) {
    c.kill();
    throw new Error(`the ${n} watchers did not connect`);
  }
  const sentAt = new Map<string, number>();
  const delivered = (name: string): Promise<boolean> =>
    got.has(name)
      ? Promise.resolve(true)
      : new Promise((resolve) => {
          const t = setTimeout(() => resolve(false), 20_000);
          waiters.set(name, () => {
            clearTimeout(t);
            resolve(true);
          });
        });
  const close = async (): Promise<number[]> => {
    c.stdin.write('stop\n');
    await exited;
    const arrivals = JSON.parse(last === '' ? '{}' : last) as Record<string, number[]>;
    const delays: number[] = [];
    for (const [name, times] of Object.entries(arrivals)) {
      const t = sentAt.get(name);
      if (t !== undefined) for (const at of times) delays.push(at - t);
    }
    return delays;
  };
  return { sentAt, delivered, close };
}

function definedOnly(o: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(o).filter((kv): kv is [string, string] => kv[1] !== undefined),
  );
}

/**
 * Creates the event `name` and waits until every watcher has it (at most 20 s: a delivery that
 * did not come shows in the figure's count).
 */
async function writeOne(s: Session, w: Watchers, name: string): Promise<void> {
  const r = await s.call(
    'POST',
    `/api/v1/namespaces/${s.namespace}/events`,
    event(name, s.namespace),
  );
  if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text.slice(0, 300)}`);
  await w.delivered(name);
}

async function deliver(s: Session, n: number, writes = WRITES): Promise<Figure[]> {
  const list = await s.call('GET', `/api/v1/namespaces/${s.namespace}/events`);
  if (list.status !== 200) throw new Error(`list: ${list.status} ${list.text.slice(0, 300)}`);
  const rv = (JSON.parse(list.text) as { metadata: { resourceVersion: string } }).metadata
    .resourceVersion;
  const w = await openWatchers(s, n, rv);
  const health: number[] = [];
  let delays: number[] = [];
  try {
    for (let i = 0; i < WARM_WRITES; i++) await writeOne(s, w, `warm${i}`);
    for (let i = 0; i < writes; i++) {
      const t = performance.now();
      await s.call('GET', '/healthz');
      health.push(performance.now() - t);
      const name = `w${i}`;
      w.sentAt.set(name, nowMs());
      await writeOne(s, w, name);
    }
  } finally {
    delays = await w.close();
  }
  // The next count's watchers start after these events: delete them so the names repeat.
  const del = await s.call('DELETE', `/api/v1/namespaces/${s.namespace}/events`);
  if (del.status !== 200)
    throw new Error(`delete collection: ${del.status} ${del.text.slice(0, 300)}`);
  const d99 = percentile(delays, 0.99);
  const h99 = percentile(health, 0.99);
  return [
    {
      name: `watch p99 to ${n}`,
      value: d99,
      unit: 'ms',
      text: `watch delivery to ${n} watchers, ${writes} writes: ${delays.length}/${writes * n} deliveries, p50 ${ms(percentile(delays, 0.5))}, p99 ${ms(d99)}`,
    },
    {
      name: `healthz p99 (${n})`,
      value: h99,
      unit: 'ms',
      text: `baseline GET /healthz round trip (same run): p50 ${ms(percentile(health, 0.5))}, p99 ${ms(h99)}`,
    },
    {
      name: `delivery / healthz p99 (${n})`,
      value: d99 / h99,
      unit: 'x',
      text: `ratio delivery p99 / healthz p99: ${(d99 / h99).toFixed(1)}x`,
    },
  ];
}

async function measure(s: Session): Promise<Figure[]> {
  const out: Figure[] = [];
  for (const n of COUNTS) out.push(...(await deliver(s, n)));
  return out;
}

/** Untimed: 200 writes to 100 watchers, so both sides run warm (the CSR benchmark says why). */
async function warmUp(s: Session): Promise<void> {
  await deliver(s, 100, 200);
}

await runRounds('apiserver-watch', 4, measure, warmUp);
