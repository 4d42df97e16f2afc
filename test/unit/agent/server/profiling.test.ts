// enableProfilingHandler and --contention-profiling: /debug/pprof/ on the secure server with the
// debugging handlers (a V8 CPU profile for ?seconds=N on the injected clock, a heap snapshot, the
// event loop delay as the contention profile); absent without enableProfilingHandler.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { fetchText } from '../../../helpers/server-https-request.js';
import {
  startServerFixture,
  makeServerCerts,
  type ServerCerts,
} from '../../../helpers/server-fixture.js';
import { ProfilingHandlers } from '../../../../src/agent/server/handlers/profiling.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

let certs: ServerCerts;
before(async () => {
  certs = await makeServerCerts();
});

test('enableProfilingHandler serves /debug/pprof/ (CPU profile, heap); --contention-profiling adds the event loop delay', async (t) => {
  const clock = new ManualClock();
  const profiling = new ProfilingHandlers({ clock, contention: true });
  t.after(() => profiling.close());
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
    profiling,
  });
  t.after(() => f.stop());
  const index = JSON.parse(
    (await fetchText(`${f.base}/debug/pprof/`, { ca: certs.ca.certPem })).body,
  ) as { profiles: string[] };
  assert.deepEqual(index.profiles, ['profile', 'heap', 'block']);
  const cpu = fetchText(`${f.base}/debug/pprof/profile?seconds=2`, { ca: certs.ca.certPem });
  await clock.waitForSleepers(1);
  clock.advance(2000);
  const profile = JSON.parse((await cpu).body) as {
    nodes: unknown[];
    startTime: number;
    endTime: number;
  };
  assert.ok(Array.isArray(profile.nodes) && profile.nodes.length > 0, 'a V8 CPU profile');
  assert.equal(
    (await fetchText(`${f.base}/debug/pprof/profile?seconds=301`, { ca: certs.ca.certPem })).status,
    400,
  );
  const block = JSON.parse(
    (await fetchText(`${f.base}/debug/pprof/block`, { ca: certs.ca.certPem })).body,
  ) as { kind: string; unit: string };
  assert.deepEqual([block.kind, block.unit], ['EventLoopDelay', 'ns']);
  assert.equal(
    (await fetchText(`${f.base}/debug/pprof/goroutine`, { ca: certs.ca.certPem })).status,
    404,
  );
  const plain = new ProfilingHandlers({ clock, contention: false });
  const g = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
    profiling: plain,
  });
  t.after(() => g.stop());
  assert.equal(
    (await fetchText(`${g.base}/debug/pprof/block`, { ca: certs.ca.certPem })).status,
    404,
    'no contention profile without --contention-profiling',
  );
  const off = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
  });
  t.after(() => off.stop());
  assert.equal(
    (await fetchText(`${off.base}/debug/pprof/`, { ca: certs.ca.certPem })).status,
    404,
    'enableProfilingHandler false: not served',
  );
});

test('the heap profile is a V8 heap snapshot', async (t) => {
  const profiling = new ProfilingHandlers({ clock: new ManualClock(), contention: false });
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
    profiling,
  });
  t.after(() => f.stop());
  const heap = await fetchText(`${f.base}/debug/pprof/heap`, { ca: certs.ca.certPem });
  assert.equal(heap.status, 200);
  assert.match(heap.body.slice(0, 200), /^\{"snapshot":\{"meta":/);
});
