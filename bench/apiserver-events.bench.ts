// Event create throughput (16 concurrent clients over HTTPS), against raw better-sqlite3 inserts
// of the same JSON in this process (the storage floor) measured in the same run.

import Database from 'better-sqlite3';
import { benchServer, event } from './apiserver-harness.js';

const N = Number(process.env['BENCH_EVENTS'] ?? 3000);
const CONCURRENCY = 16;

const db = new Database(':memory:');
db.exec('CREATE TABLE revisions (key TEXT NOT NULL, rv INTEGER NOT NULL, op INTEGER NOT NULL, value BLOB NOT NULL, PRIMARY KEY (key, rv)) WITHOUT ROWID');
const ins = db.prepare('INSERT INTO revisions (key, rv, op, value) VALUES (?, ?, 0, ?)');
const t0 = performance.now();
for (let i = 0; i < N; i++) ins.run(`/core/events/default/e${i}`, i + 1, Buffer.from(JSON.stringify(event(`e${i}`))));
const rawPerSec = N / ((performance.now() - t0) / 1000);
db.close();

const s = await benchServer([], CONCURRENCY);
try {
  let next = 0;
  const t1 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) {
        const i = next++;
        const r = await s.call('POST', '/api/v1/namespaces/default/events', event(`e${i}`));
        if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
      }
    }),
  );
  const perSec = N / ((performance.now() - t1) / 1000);
  console.log(`Event create throughput (n=${N}, ${CONCURRENCY} concurrent): ${perSec.toFixed(0)} events/s`);
  console.log(`baseline raw better-sqlite3 insert: ${rawPerSec.toFixed(0)} rows/s`);
  console.log(`ratio API / raw insert: ${(perSec / rawPerSec).toFixed(3)}`);
} finally {
  await s.close();
}
