// Event create throughput (16 concurrent clients over keep-alive HTTPS, core/v1 Events in the
// run's own namespace), against raw better-sqlite3 inserts of the same JSON in this process (the
// storage floor) measured in the same run; and the latency of reads made meanwhile (one GET of
// the namespace at a time), which a server that waits for its disk on its one thread delays.
// Runs against any server (apiserver-target.ts); BENCH_SLOW_FSYNC_MS gives the servers it starts
// a slow disk (slow-fsync.ts).

import Database from 'better-sqlite3';
import {
  concurrently,
  event,
  percentile,
  positiveInt,
  runRounds,
  type Figure,
  type Session,
  firstThreadCpuMs,
  readsDuring,
} from './apiserver-harness.js';

const N = positiveInt('BENCH_EVENTS', process.env['BENCH_EVENTS'] ?? '3000');
const CONCURRENCY = 16;

function rawInsertsPerSec(ns: string): number {
  const db = new Database(':memory:');
  db.exec(
    'CREATE TABLE revisions (key TEXT NOT NULL, rv INTEGER NOT NULL, op INTEGER NOT NULL, value BLOB NOT NULL, PRIMARY KEY (key, rv)) WITHOUT ROWID',
  );
  const ins = db.prepare('INSERT INTO revisions (key, rv, op, value) VALUES (?, ?, 0, ?)');
  const t0 = performance.now();
  for (let i = 0; i < N; i++)
    ins.run(`/core/events/${ns}/e${i}`, i + 1, Buffer.from(JSON.stringify(event(`e${i}`, ns))));
  const perSec = N / ((performance.now() - t0) / 1000);
  db.close();
  return perSec;
}

async function measure(s: Session): Promise<Figure[]> {
  const raw = rawInsertsPerSec(s.namespace);
  const t1 = performance.now();
  const [[reads], mainMs] = await firstThreadCpuMs(s, () => {
    const creates = concurrently(N, CONCURRENCY, async (i) => {
      const r = await s.call(
        'POST',
        `/api/v1/namespaces/${s.namespace}/events`,
        event(`e${i}`, s.namespace),
      );
      if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text.slice(0, 300)}`);
    });
    return Promise.all([readsDuring(s, creates), creates]);
  });
  const perSec = N / ((performance.now() - t1) / 1000);
  const mainUs = (mainMs * 1000) / N;
  const [p50, p99] = [percentile(reads, 0.5), percentile(reads, 0.99)];
  return [
    {
      name: 'event creates/s',
      value: perSec,
      unit: '/s',
      text: `Event create throughput (n=${N}, ${CONCURRENCY} concurrent): ${perSec.toFixed(0)} events/s`,
    },
    {
      name: 'first thread CPU us per create',
      value: mainUs,
      unit: 'us',
      text: `  the server's first thread (plat-apiserver's event loop): ${mainUs.toFixed(0)} us of CPU per create, the reads included`,
    },
    {
      name: 'raw inserts/s',
      value: raw,
      unit: '/s',
      text: `baseline raw better-sqlite3 insert: ${raw.toFixed(0)} rows/s`,
    },
    {
      name: 'API / raw insert',
      value: perSec / raw,
      unit: 'x',
      text: `ratio API / raw insert: ${(perSec / raw).toFixed(3)}`,
    },
    {
      name: 'read p50 during creates',
      value: p50,
      unit: 'ms',
      text: `GET of the namespace during the creates (n=${reads.length}): p50 ${p50.toFixed(2)} ms`,
    },
    {
      name: 'read p99 during creates',
      value: p99,
      unit: 'ms',
      text: `  and p99 ${p99.toFixed(2)} ms`,
    },
  ];
}

/** Untimed: creates of the same shape under names of their own, so both sides run warm. */
async function warmUp(s: Session): Promise<void> {
  await concurrently(1000, CONCURRENCY, async (i) => {
    const r = await s.call(
      'POST',
      `/api/v1/namespaces/${s.namespace}/events`,
      event(`warm-${i}`, s.namespace),
    );
    if (r.status !== 201) throw new Error(`warm-up create: ${r.status} ${r.text.slice(0, 300)}`);
  });
}

await runRounds('apiserver-events', CONCURRENCY, measure, warmUp);
