// The SQLite MVCC store: one global revision, optimistic writes, snapshot reads, change
// history, compaction, corrupt values, and resourceVersions that continue after a reopen.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CompactedError,
  Store,
  StoreConflictError,
  StoreReadError,
  prefixEnd,
  type Change,
  type StoreOptions,
} from '../../../src/apiserver/storage/store.js';
import { identityTransformers } from '../../../src/apiserver/storage/identity.js';
import { silentLogger, type Logger } from '../../../src/common/log/types.js';
import type { Clock } from '../../../src/common/util/clock.js';
import { FlagError } from '../../../src/common/util/errors.js';
import Database from 'better-sqlite3';
import {
  keptDatabaseCount,
  openDatabase,
  prepareKept,
} from '../../../src/apiserver/storage/sqlite-handles.js';
import type { LogSync } from '../../../src/apiserver/storage/write-batch.js';

function manualClock(): Clock & { advance(ms: number): void } {
  let now = 1_700_000_000_000;
  return {
    now: () => new Date(now),
    nowMs: () => now,
    sleep: () => Promise.resolve(),
    advance: (ms) => (now += ms),
  };
}

/** A store in memory, or in `dataDir`; `more` replaces the logger or wraps the log sync. */
function open(
  dataDir?: string,
  clock = manualClock(),
  more: Pick<StoreOptions, 'logSync'> & { logger?: Logger } = {},
): Store {
  return new Store({
    dataDir,
    transformers: identityTransformers(),
    logger: more.logger ?? silentLogger(),
    clock,
    compactionIntervalMs: 60_000,
    ...(more.logSync === undefined ? {} : { logSync: more.logSync }),
  });
}

const obj = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  metadata: { name },
  ...extra,
});

test('every write takes the next global revision; conflicts are detected', async () => {
  const s = open();
  const a = await s.write('/core/events/ns/a', 'ADDED', obj('a'), 0, undefined);
  const b = await s.write(
    '/certificates.x/certificatesigningrequests/b',
    'ADDED',
    obj('b'),
    0,
    undefined,
  );
  assert.equal(a.rv, 1);
  assert.equal(b.rv, 2);
  assert.equal(s.currentRevision(), 2);
  await assert.rejects(
    s.write('/core/events/ns/a', 'ADDED', obj('a'), 0, undefined),
    StoreConflictError,
  );
  await assert.rejects(
    s.write('/core/events/ns/a', 'MODIFIED', obj('a'), 5, undefined),
    StoreConflictError,
  );
  const m = await s.write('/core/events/ns/a', 'MODIFIED', obj('a', { n: 1 }), 1, a.object);
  assert.equal(m.rv, 3);
  assert.equal(
    ((await s.get('/core/events/ns/a'))?.['metadata'] as Record<string, unknown>)[
      'resourceVersion'
    ],
    '3',
  );
  s.close();
});

test('snapshot reads see the state as of a revision; changes come in revision order', async () => {
  const s = open();
  const changes: Change[] = [];
  s.subscribe((c) => changes.push(c));
  for (const n of ['a', 'b', 'c'])
    await s.write(`/core/events/ns/${n}`, 'ADDED', obj(n), 0, undefined);
  const snap = s.currentRevision();
  await s.write('/core/events/ns/b', 'DELETED', obj('b'), 2, obj('b'));
  await s.write('/core/events/ns/d', 'ADDED', obj('d'), 0, undefined);
  const p = '/core/events/ns/';
  assert.deepEqual(
    s.rangeRaw(p, prefixEnd(p), snap).map((r) => r.key.slice(p.length)),
    ['a', 'b', 'c'],
  );
  assert.deepEqual(
    s.rangeRaw(p, prefixEnd(p), s.currentRevision()).map((r) => r.key.slice(p.length)),
    ['a', 'c', 'd'],
  );
  assert.deepEqual(s.rangeRaw(p, prefixEnd(p), s.currentRevision(), 2).length, 2);
  assert.equal(s.countRange(p, prefixEnd(p), snap), 3);
  assert.deepEqual(
    s
      .changesRaw(snap, s.currentRevision(), p, prefixEnd(p))
      .map((r) => `${r.type}:${r.key.slice(p.length)}`),
    ['DELETED:b', 'ADDED:d'],
  );
  assert.deepEqual(
    changes.map((c) => c.type),
    ['ADDED', 'ADDED', 'ADDED', 'DELETED', 'ADDED'],
  );
  s.close();
});

test('compaction drops superseded revisions older than the interval; reads below it fail', async () => {
  const clock = manualClock();
  const s = open(undefined, clock);
  await s.write('/core/events/ns/a', 'ADDED', obj('a'), 0, undefined);
  await s.write('/core/events/ns/a', 'MODIFIED', obj('a', { n: 2 }), 1, undefined);
  s.compact();
  clock.advance(61_000);
  s.compact();
  assert.equal(s.compactedRevision(), 2);
  await s.write('/core/events/ns/a', 'MODIFIED', obj('a', { n: 3 }), 2, undefined);
  assert.throws(() => s.changesRaw(1, 3, '/', '0'), CompactedError);
  assert.deepEqual(
    s.changesRaw(2, 3, '/', '0').map((r) => r.rv),
    [3],
  );
  assert.equal(
    (await s.get('/core/events/ns/a', 2))?.['n'],
    2,
    'the state at the compacted revision stays readable',
  );
  s.close();
});

test('a value that cannot be decoded is a StoreReadError and can still be force-deleted', async () => {
  const s = open();
  const c = await s.write('/core/events/ns/x', 'ADDED', obj('x'), 0, undefined);
  s.overwriteRaw('/core/events/ns/x', c.rv, Buffer.from([0xff, 0xfe]));
  await assert.rejects(s.get('/core/events/ns/x'), StoreReadError);
  s.forceDelete('/core/events/ns/x');
  assert.equal(await s.get('/core/events/ns/x'), undefined);
  s.close();
});

test('with a data dir, revisions continue after reopening', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'store-'));
  try {
    const s1 = open(dir);
    await s1.write('/core/events/ns/a', 'ADDED', obj('a'), 0, undefined);
    await s1.write('/core/events/ns/b', 'ADDED', obj('b'), 0, undefined);
    s1.close();
    const s2 = open(dir);
    assert.equal(s2.currentRevision(), 2);
    assert.equal((await s2.write('/core/events/ns/c', 'ADDED', obj('c'), 0, undefined)).rv, 3);
    assert.ok(await s2.get('/core/events/ns/a'));
    s2.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with a data dir, concurrent writes share one transaction; each is on disk when it is answered, and a conflict fails alone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'store-batch-'));
  // Another connection, its handles kept reachable as the store's are (sqlite-handles.ts: Node 24
  // aborts when the collector frees one).
  const reader = (): Database.Database =>
    openDatabase(join(dir, 'plat-apiserver.db'), { readonly: true });
  try {
    const s = open(dir);
    const seen: Change[] = [];
    s.subscribe((c) => seen.push(c));
    const writes = [
      s.write('/core/events/ns/a', 'ADDED', obj('a'), 0, undefined),
      s.write('/core/events/ns/b', 'ADDED', obj('b'), 0, undefined),
      s.write('/core/events/ns/a', 'ADDED', obj('a'), 0, undefined),
      s.write('/core/events/ns/c', 'ADDED', obj('c'), 0, undefined),
    ];
    const outcome = (r: PromiseSettledResult<Change> | undefined): unknown =>
      r?.status === 'fulfilled' ? r.value.rv : r?.reason;
    const [a, b, dup, c] = (await Promise.allSettled(writes)).map(outcome);
    assert.equal(a, 1);
    assert.equal(b, 2);
    assert.ok(dup instanceof StoreConflictError);
    assert.equal(c, 3);
    assert.deepEqual(
      seen.map((x) => `${x.key}@${x.rv}`),
      ['/core/events/ns/a@1', '/core/events/ns/b@2', '/core/events/ns/c@3'],
    );
    // Another connection sees each answered write: it was committed before the answer.
    const db = reader();
    const rows = prepareKept(db, 'SELECT key, rv FROM revisions ORDER BY rv').all();
    db.close();
    assert.deepEqual(rows, [
      { key: '/core/events/ns/a', rv: 1 },
      { key: '/core/events/ns/b', rv: 2 },
      { key: '/core/events/ns/c', rv: 3 },
    ]);
    const d = await s.write('/core/events/ns/d', 'ADDED', obj('d'), 0, undefined);
    const db2 = reader();
    assert.deepEqual(
      prepareKept(db2, 'SELECT rv FROM revisions WHERE key = ?').get('/core/events/ns/d'),
      { rv: d.rv },
    );
    db2.close();
    // A write queued when the store closes is committed first (microtask hops let its encoding
    // finish and queue it; the batch's own turn has not come yet).
    const last = s.write('/core/events/ns/e', 'ADDED', obj('e'), 0, undefined);
    for (let i = 0; i < 20; i++) await Promise.resolve();
    s.close();
    assert.equal((await last).rv, 5);
    const s2 = open(dir);
    assert.equal(s2.currentRevision(), 5);
    s2.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a data dir that cannot hold the database is one FlagError naming --data-dir', () => {
  assert.throws(
    () => open('/proc/no-such-dir/x'),
    (e: unknown) =>
      e instanceof FlagError &&
      e.message.startsWith('--data-dir /proc/no-such-dir/x: cannot open the database'),
  );
});

test('no better-sqlite3 object is left to the garbage collector: nothing is prepared after opening, closed stores stay referenced', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'store-kept-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // Node 24 aborts when the collector frees a better-sqlite3 Statement outside a V8 context
  // (sqlite-handles.ts): every statement a store uses is made when it opens, none per operation.
  const proto = Database.prototype as unknown as Record<
    'prepare' | 'pragma',
    (...a: unknown[]) => unknown
  >;
  const calls: string[] = [];
  const originals = { prepare: proto.prepare, pragma: proto.pragma };
  const before = keptDatabaseCount();
  const s = open(dir);
  proto.prepare = function (this: unknown, ...a: unknown[]) {
    calls.push(`prepare ${String(a[0])}`);
    return originals.prepare.apply(this, a);
  };
  proto.pragma = function (this: unknown, ...a: unknown[]) {
    calls.push(`pragma ${String(a[0])}`);
    return originals.pragma.apply(this, a);
  };
  try {
    const a = await s.write('/core/events/ns/a', 'ADDED', obj('a'), 0, undefined);
    await s.write('/core/events/ns/a', 'MODIFIED', obj('a', { n: 1 }), a.rv, a.object);
    await s.get('/core/events/ns/a', a.rv);
    s.rangeRaw('/core/events/', prefixEnd('/core/events/'), s.currentRevision(), 10);
    s.countRange('/core/events/', prefixEnd('/core/events/'), s.currentRevision());
    s.changesRaw(0, s.currentRevision(), '/core/', prefixEnd('/core/'));
    s.previousRaw('/core/events/ns/a', s.currentRevision());
    s.compact();
  } finally {
    proto.prepare = originals.prepare;
    proto.pragma = originals.pragma;
    s.close();
  }
  assert.deepEqual(calls, []);
  assert.equal(keptDatabaseCount(), before + 1, 'the closed store stays referenced');
});

test('the live count of a prefix follows creates, deletes, conflicts and force-deletes, in memory and on disk, and equals a count in the store', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'store-live-'));
  try {
    for (const s of [open(), open(dir)]) {
      const p = '/core/pods/';
      const a = await s.write('/core/pods/ns1/a', 'ADDED', obj('a'), 0, undefined);
      assert.equal(s.liveCount(p), 1, 'first counted in the store');
      assert.equal(s.liveCount('/core/pods/ns1/'), 1);
      const writes = await Promise.allSettled([
        s.write('/core/pods/ns1/b', 'ADDED', obj('b'), 0, undefined),
        s.write('/core/pods/ns2/c', 'ADDED', obj('c'), 0, undefined),
        s.write('/core/pods/ns1/a', 'ADDED', obj('a'), 0, undefined), // conflict: exists
        s.write('/core/pods/ns1/a', 'MODIFIED', obj('a', { x: 1 }), a.rv, a.object),
        s.write('/core/nodes/n', 'ADDED', obj('n'), 0, undefined),
      ]);
      assert.deepEqual(
        writes.map((w) => w.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
      );
      assert.equal(s.liveCount(p), 3, 'two creates; a conflict and a modify add nothing');
      assert.equal(s.liveCount('/core/pods/ns1/'), 2);
      const b = s.getRaw('/core/pods/ns1/b');
      assert.ok(b !== undefined);
      await s.write('/core/pods/ns1/b', 'DELETED', obj('b'), b.rv, obj('b'));
      s.forceDelete('/core/pods/ns2/c');
      assert.equal(s.liveCount(p), 1);
      assert.equal(s.liveCount('/core/pods/ns1/'), 1);
      assert.equal(s.liveCount(p), s.countRange(p, prefixEnd(p), s.currentRevision()));
      assert.equal(s.liveCount('/core/nodes/'), 1);
      s.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A slow disk: a sync on the event loop takes 10 ms (so the store soon syncs off it), and one off
 * the event loop waits for the test before running the real one.
 */
function heldLog(): { wrap: (real: LogSync) => LogSync; release: () => void; syncs: () => number } {
  let gate: (() => void)[] = [];
  let syncs = 0;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  return {
    wrap: (real) => ({
      sync: async () => {
        syncs++;
        await new Promise<void>((r) => gate.push(r));
        await real.sync();
      },
      syncNow: () => {
        Atomics.wait(sleeper, 0, 0, 10);
        real.syncNow();
      },
    }),
    release: () => {
      const g = gate;
      gate = [];
      for (const r of g) r();
    },
    syncs: () => syncs,
  };
}

test('on disk, a committed write is not read, listed, counted, announced or answered until the log sync covering it finished', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'store-durable-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const held = heldLog();
  const s = open(dir, manualClock(), { logSync: held.wrap });
  // The first write is synced on the event loop, and shows the disk is slow.
  await s.write('/core/pods/ns/first', 'ADDED', obj('first'), 0, undefined);
  s.forceDelete('/core/pods/ns/first');
  const seen: string[] = [];
  s.subscribe((c) => seen.push(`${c.key}@${c.rv}`));
  const a = s.write('/core/pods/ns/a', 'ADDED', obj('a'), 0, undefined);
  let answered = false;
  void a.then(() => (answered = true));
  while (held.syncs() === 0) await new Promise((r) => setImmediate(r));
  // Committed in SQLite: another connection sees the row ...
  const db = openDatabase(join(dir, 'plat-apiserver.db'), { readonly: true });
  assert.deepEqual(prepareKept(db, 'SELECT key, rv FROM revisions WHERE rv > 2').all(), [
    { key: '/core/pods/ns/a', rv: 3 },
  ]);
  db.close();
  // ... but the store serves only what is durable.
  assert.equal(s.currentRevision(), 2);
  assert.equal(s.getRaw('/core/pods/ns/a'), undefined);
  assert.deepEqual(s.rangeRaw('/core/pods/', prefixEnd('/core/pods/'), 3), []);
  assert.equal(s.liveCount('/core/pods/'), 0);
  assert.deepEqual(s.changesRaw(2, 3, '/core/pods/', prefixEnd('/core/pods/')), []);
  // A second create of the same name is refused by the committed one, but only answered once
  // that one is durable (so a read after the refusal finds it).
  const dup = s.write('/core/pods/ns/a', 'ADDED', obj('a'), 0, undefined);
  let dupAnswered = false;
  dup.catch(() => (dupAnswered = true));
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  assert.equal(answered, false);
  assert.equal(dupAnswered, false);
  assert.deepEqual(seen, []);
  held.release();
  assert.equal((await a).rv, 3);
  assert.deepEqual(seen, ['/core/pods/ns/a@3']);
  assert.equal(s.currentRevision(), 3);
  assert.equal(s.liveCount('/core/pods/'), 1);
  held.release(); // the refused write's batch
  await assert.rejects(dup, StoreConflictError);
  assert.equal(s.getRaw('/core/pods/ns/a')?.rv, 3);
  // Closing syncs at once what is still under way.
  const b = s.write('/core/pods/ns/b', 'ADDED', obj('b'), 0, undefined);
  while (held.syncs() < 3) await new Promise((r) => setImmediate(r));
  s.close();
  assert.equal((await b).rv, 4, 'the refused create took no revision');
  held.release();
  const again = open(dir);
  assert.equal(again.currentRevision(), 4);
  assert.ok(again.getRaw('/core/pods/ns/b'));
  again.close();
});

test('on disk, writes go on across SQLite checkpoints of the log, each synced by the real log sync', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'store-wal-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  let syncs = 0;
  const s = open(dir, manualClock(), {
    logSync: (real) => ({
      sync: () => (syncs++, real.sync()),
      syncNow: () => (syncs++, real.syncNow()),
    }),
  });
  // 4 KiB values: 1,500 of them pass SQLite's automatic checkpoint (1,000 pages) more than once.
  const big = 'x'.repeat(4096);
  for (let i = 0; i < 1500; i += 50) {
    const batch = [];
    for (let j = i; j < i + 50; j++)
      batch.push(
        s.write(`/core/configmaps/ns/c${j}`, 'ADDED', obj(`c${j}`, { big }), 0, undefined),
      );
    await Promise.all(batch);
  }
  assert.equal(s.currentRevision(), 1500);
  assert.ok(syncs >= 30, `one sync per batch at least (${syncs})`);
  // Without a checkpoint rewinding it, the log would hold every value written (6 MB and more).
  const wal = statSync(join(dir, 'plat-apiserver.db-wal')).size;
  assert.ok(wal < 1500 * 4096, `the log was checkpointed and rewound (${wal} bytes)`);
  s.close();
  const again = open(dir);
  assert.equal(again.countRange('/core/configmaps/', prefixEnd('/core/configmaps/'), 1500), 1500);
  again.close();
});

test('on disk, a log that cannot be synced fails the write, refuses every later one with the same error, logs it once, and the store still closes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'store-eio-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const errors: string[] = [];
  const logger: Logger = {
    ...silentLogger(),
    error: (_o: unknown, msg?: string) => void errors.push(msg ?? ''),
  };
  let broken = false;
  const s = open(dir, manualClock(), {
    logger,
    logSync: (real) => ({
      sync: () => real.sync(),
      syncNow: () => {
        if (broken) throw new Error('EIO: i/o error, fdatasync');
        real.syncNow();
      },
    }),
  });
  await s.write('/core/pods/ns/a', 'ADDED', obj('a'), 0, undefined);
  broken = true;
  const message =
    'storage: the database log could not be synced to disk (EIO: i/o error, fdatasync); the ' +
    'outcome of the writes since the last sync is unknown and no further write is taken: ' +
    'restart plat-apiserver';
  await assert.rejects(s.write('/core/pods/ns/b', 'ADDED', obj('b'), 0, undefined), { message });
  assert.equal(s.getRaw('/core/pods/ns/b'), undefined, 'the undecided write is not served');
  await assert.rejects(s.write('/core/pods/ns/c', 'ADDED', obj('c'), 0, undefined), { message });
  assert.throws(() => s.forceDelete('/core/pods/ns/a'), { message });
  assert.deepEqual(errors, ['storage stopped taking writes']);
  s.close();
});
