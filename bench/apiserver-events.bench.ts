// Event create throughput (16 concurrent clients over keep-alive HTTPS, core/v1 Events in the
// run's own namespace), against raw better-sqlite3 inserts of the same JSON in this process (the
// storage floor) measured in the same run. Runs against any server (apiserver-target.ts); the
// reference's figure (a real kube-apiserver 1.32 with etcd) is 652 events/s.

import Database from 'better-sqlite3';
import {
  concurrently,
  event,
  positiveInt,
  runRounds,
  type Figure,
  type Session,
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
  await concurrently(N, CONCURRENCY, async (i) => {
    const r = await s.call(
      'POST',
      `/api/v1/namespaces/${s.namespace}/events`,
      event(`e${i}`, s.namespace),
    );
    if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text.slice(0, 300)}`);
  });
  const perSec = N / ((performance.now() - t1) / 1000);
  return [
    {
      name: 'event creates/s',
      value: perSec,
      unit: '/s',
      text: `Event create throughput (n=${N}, ${CONCURRENCY} concurrent): ${perSec.toFixed(0)} events/s`,
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
  ];
}

await runRounds('apiserver-events', CONCURRENCY, measure);
