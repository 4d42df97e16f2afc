// Group commit (src/apiserver/storage/write-batch.ts): the writes of one event-loop turn go to
// one commit; nothing of a batch shows or settles before a log sync that covers it has finished;
// a fast disk is synced on the event loop, a slow one off it, where the batches committed during
// a sync share the next one; a refused write fails alone, and only once its batch is durable; a
// commit that throws fails every write of its batch; a failed sync fails every undecided write
// and every later one.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LogSyncError,
  SYNC_OFF_LOOP_MS,
  WriteBatcher,
  type CommittedBatch,
  type LogSync,
  type PendingWrite,
  type WriteOutcome,
} from '../../../../src/apiserver/storage/write-batch.js';

const write = (key: string, expectRev = 0): PendingWrite<string> => ({
  key,
  op: 0,
  value: new Uint8Array([1]),
  expectRev,
  done: (rv) => `${key}@${rv}`,
});

/**
 * A disk on a clock of its own: a sync on the event loop takes `ms`, one off it finishes when the
 * test says so and took `ms` as well.
 */
class Disk implements LogSync {
  readonly pending: { resolve: () => void; reject: (e: Error) => void }[] = [];
  clock = 0;
  syncs = 0;
  syncsNow = 0;
  failNow: Error | undefined;
  constructor(public ms: number) {}
  readonly now = (): number => this.clock;
  sync(): Promise<void> {
    this.syncs++;
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject }));
  }
  syncNow(): void {
    this.syncsNow++;
    this.clock += this.ms;
    if (this.failNow !== undefined) throw this.failNow;
  }
  /** Finishes the oldest sync under way. */
  finish(err?: Error): void {
    const p = this.pending.shift();
    assert.ok(p, 'a sync is under way');
    this.clock += this.ms;
    if (err === undefined) p.resolve();
    else p.reject(err);
  }
}

/**
 * A batcher over a slow disk (5 ms a sync) that has learnt so: one write synced on the event loop
 * first, after which syncs run off it. `c` numbers from 1 after that write.
 */
async function slowBatcher(
  c: ReturnType<typeof committer>,
  onFail: (e: LogSyncError) => void = noFail,
) {
  const log = new Disk(5);
  const b = new WriteBatcher({ commit: c.commit, log, onFail, now: log.now });
  c.reset(0);
  assert.equal(b.syncsOffLoop(), false, 'a new batcher syncs on the event loop');
  assert.equal(await b.add(write('warm-up')), 'warm-up@1');
  assert.equal(log.syncsNow, 1);
  assert.equal(b.syncsOffLoop(), true, 'one 5 ms sync: the next run off the event loop');
  c.commits.length = 0;
  c.durable.length = 0;
  c.reset(0);
  return { log, b };
}

/** A commit that numbers the writes from `rv`, refuses the keys in `refuse`, records batches. */
function committer(rv: number, refuse: ReadonlySet<string> = new Set()) {
  const commits: string[][] = [];
  const durable: string[][] = [];
  const reset = (to: number): void => void (rv = to);
  const commit = (ws: readonly PendingWrite<unknown>[]): CommittedBatch => {
    const keys = ws.map((w) => w.key);
    commits.push(keys);
    const outcomes: WriteOutcome[] = ws.map((w) =>
      refuse.has(w.key) ? new Error(`conflict on ${w.key}`) : ++rv,
    );
    return { outcomes, durable: () => durable.push(keys) };
  };
  return { commit, commits, durable, reset };
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
const noFail = (): void => undefined;

test('the writes of one turn are committed together, in arrival order, and settle only after a sync covered them', async () => {
  const c = committer(10);
  const { log, b } = await slowBatcher(c);
  c.reset(10);
  const settled: string[] = [];
  const all = Promise.all(['a', 'b', 'c'].map((k) => b.add(write(k)).then((r) => settled.push(r))));
  assert.deepEqual(c.commits, []);
  await turn();
  assert.deepEqual(c.commits, [['a', 'b', 'c']]);
  assert.equal(log.syncs, 1);
  await turn();
  assert.deepEqual(settled, [], 'committed, not yet durable: nothing settles');
  assert.deepEqual(c.durable, [], 'and nothing is made visible');
  log.finish();
  await all;
  assert.deepEqual(settled, ['a@11', 'b@12', 'c@13']);
  assert.deepEqual(c.durable, [['a', 'b', 'c']]);
});

test('the batches committed while a sync runs share the next sync, and settle in commit order', async () => {
  const c = committer(0);
  const { log, b } = await slowBatcher(c);
  const settled: string[] = [];
  const first = b.add(write('a')).then((r) => settled.push(r));
  await turn();
  const second = b.add(write('b')).then((r) => settled.push(r));
  await turn();
  const third = b.add(write('c')).then((r) => settled.push(r));
  await turn();
  assert.deepEqual(c.commits, [['a'], ['b'], ['c']], 'each turn commits at once');
  assert.equal(log.syncs, 1, 'one sync at a time');
  log.finish();
  await first;
  await turn();
  assert.deepEqual(settled, ['a@1']);
  assert.equal(log.syncs, 2, 'the next sync covers both later batches');
  log.finish();
  await Promise.all([second, third]);
  assert.deepEqual(settled, ['a@1', 'b@2', 'c@3']);
  assert.deepEqual(c.durable, [['a'], ['b'], ['c']]);
});

test('a write the commit refuses fails alone, once its batch is durable; a commit that throws fails its whole batch at once', async () => {
  const c = committer(0, new Set(['b']));
  const { log, b } = await slowBatcher(c);
  const results = Promise.allSettled([b.add(write('a')), b.add(write('b')), b.add(write('c'))]);
  let done = false;
  void results.then(() => (done = true));
  await turn();
  await turn();
  assert.equal(done, false, 'the refusal waits for the sync too');
  log.finish();
  const [a, bad, cc] = await results;
  assert.deepEqual(a, { status: 'fulfilled', value: 'a@1' });
  assert.equal(bad?.status, 'rejected');
  assert.equal(bad.status === 'rejected' && (bad.reason as Error).message, 'conflict on b');
  assert.deepEqual(cc, { status: 'fulfilled', value: 'c@2' }, 'a refusal takes no revision');
  const disk = new Error('SQLITE_FULL: database or disk is full');
  const failing = new WriteBatcher({
    commit: () => {
      throw disk;
    },
    log,
    onFail: noFail,
  });
  const out = await Promise.allSettled([failing.add(write('x')), failing.add(write('y'))]);
  assert.deepEqual(out, [
    { status: 'rejected', reason: disk },
    { status: 'rejected', reason: disk },
  ]);
});

test('a failed sync fails every undecided write, is told once, and every later write is refused', async () => {
  const c = committer(0);
  const told: LogSyncError[] = [];
  const { log, b } = await slowBatcher(c, (e) => told.push(e));
  const inSync = b.add(write('a'));
  await turn();
  const next = b.add(write('b'));
  await turn();
  log.finish(new Error('EIO: i/o error, fdatasync'));
  const results = await Promise.allSettled([inSync, next, b.add(write('c'))]);
  for (const r of results) {
    assert.equal(r.status, 'rejected');
    assert.ok(r.status === 'rejected' && r.reason instanceof LogSyncError);
  }
  assert.equal(told.length, 1);
  assert.equal(
    told[0]?.message,
    'storage: the database log could not be synced to disk (EIO: i/o error, fdatasync); the ' +
      'outcome of the writes since the last sync is unknown and no further write is taken: ' +
      'restart plat-apiserver',
  );
  assert.deepEqual(c.commits, [['a'], ['b']], 'nothing is committed after the failure');
  assert.deepEqual(c.durable, [], 'nothing undecided becomes visible');
});

test('drainNow() commits what is queued, syncs at once and settles everything; the sync under way settles nothing twice', async () => {
  const c = committer(0);
  const { log, b } = await slowBatcher(c);
  const a = b.add(write('a'));
  await turn();
  const q = b.add(write('b'));
  b.drainNow();
  assert.deepEqual(c.commits, [['a'], ['b']]);
  assert.equal(log.syncsNow, 2);
  assert.deepEqual(await Promise.all([a, q]), ['a@1', 'b@2']);
  assert.deepEqual(c.durable, [['a'], ['b']]);
  log.finish(); // the async sync started for `a` ends late
  await turn();
  assert.deepEqual(c.durable, [['a'], ['b']], 'settled once');
  b.drainNow();
  assert.equal(log.syncsNow, 2, 'nothing committed: no sync');
  log.failNow = new Error('EIO');
  const d = b.add(write('d'));
  assert.throws(() => b.drainNow(), LogSyncError);
  await assert.rejects(d, LogSyncError);
});

test('commitNow() commits its transaction after the queued writes, syncs at once and settles all of them; what it throws fails it alone, and the writes queued before go on to their sync', async () => {
  const c = committer(0);
  const { log, b } = await slowBatcher(c);
  const a = b.add(write('a'));
  const now: string[] = [];
  b.commitNow(() => {
    now.push('now');
    return { outcomes: [], durable: () => c.durable.push(['now']) };
  });
  assert.deepEqual(c.commits, [['a']], 'the queued write committed first');
  assert.deepEqual(c.durable, [['a'], ['now']], 'both visible, in commit order');
  assert.equal(log.syncsNow, 2, 'one sync at once');
  assert.equal(await a, 'a@1');
  const q = b.add(write('q'));
  assert.throws(
    () =>
      b.commitNow(() => {
        throw new Error('conflict');
      }),
    /conflict/,
  );
  await turn();
  log.finish(); // the sync `a` started before commitNow() took over: settles nothing
  log.finish(); // q's
  assert.equal(await q, 'q@2');
});

test('a fast disk is synced on the event loop, each batch settled in its own turn; a slow spell moves the syncs off it and back once they are fast again', async () => {
  const c = committer(0);
  const log = new Disk(0.2);
  const b = new WriteBatcher({ commit: c.commit, log, onFail: noFail, now: log.now });
  for (let i = 0; i < 5; i++) assert.equal(await b.add(write(`f${i}`)), `f${i}@${i + 1}`);
  assert.equal(log.syncsNow, 5);
  assert.equal(log.syncs, 0, 'no sync off the event loop');
  log.ms = 4 * SYNC_OFF_LOOP_MS; // the disk gets slow
  await b.add(write('s'));
  assert.equal(b.syncsOffLoop(), true);
  const off = b.add(write('t'));
  await turn();
  assert.equal(log.syncs, 1, 'the next sync runs off the event loop');
  log.ms = 0.1; // and fast again
  log.finish();
  assert.equal(await off, 't@7');
  let n = 0;
  while (b.syncsOffLoop()) {
    const p = b.add(write(`r${n++}`));
    await turn();
    log.finish();
    await p;
  }
  assert.ok(n <= 8, `back on the event loop after ${n} fast syncs`);
  const syncsBefore = log.syncs;
  await b.add(write('last'));
  assert.equal(log.syncs, syncsBefore);
});

test("while the batches hold several writes, a fast disk's batch waits one more turn for the writes arriving in it; a lone writer's batch does not wait", async () => {
  const c = committer(0);
  const log = new Disk(0.1);
  const b = new WriteBatcher({ commit: c.commit, log, onFail: noFail, now: log.now });
  const a = b.add(write('a'));
  await turn();
  assert.deepEqual(c.commits, [['a']], 'a lone write: committed in its own turn');
  assert.equal(await a, 'a@1');
  const two = [b.add(write('b')), b.add(write('c'))];
  await turn();
  assert.deepEqual(c.commits, [['a'], ['b', 'c']], 'after a batch of one, no wait');
  await Promise.all(two);
  const d = b.add(write('d'));
  await turn();
  assert.equal(c.commits.length, 2, 'after a batch of two, the next waits a turn');
  const e = b.add(write('e'));
  await turn();
  assert.deepEqual(c.commits[2], ['d', 'e'], 'and takes the write of that turn');
  assert.deepEqual(await Promise.all([d, e]), ['d@4', 'e@5']);
  assert.equal(log.syncsNow, 3, 'one sync a batch, on the event loop');
  const f = b.add(write('f'));
  await turn();
  await turn();
  assert.deepEqual(c.commits[3], ['f']);
  await f;
  const g = b.add(write('g'));
  await turn();
  assert.deepEqual(c.commits[4], ['g'], 'after a batch of one again, no wait');
  await g;
});
