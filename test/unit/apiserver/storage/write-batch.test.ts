// Group commit (src/apiserver/storage/write-batch.ts): the writes of one event-loop turn go to
// one commit; none settles before that commit returned; a refused write fails alone; a commit
// that throws fails every write of its batch.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  WriteBatcher,
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

test('the writes of one turn are committed together, in arrival order, and settle only after the commit', async () => {
  const commits: string[][] = [];
  const settled: string[] = [];
  const settledAtCommit: number[] = [];
  let rv = 10;
  const b = new WriteBatcher({
    commit: (ws) => {
      commits.push(ws.map((w) => w.key));
      settledAtCommit.push(settled.length);
      return ws.map(() => ++rv);
    },
  });
  const all = Promise.all(
    ['a', 'b', 'c'].map((k) => b.add(write(k)).then((r) => (settled.push(r), r))),
  );
  assert.deepEqual(commits, []);
  assert.deepEqual(await all, ['a@11', 'b@12', 'c@13']);
  assert.deepEqual(commits, [['a', 'b', 'c']]);
  assert.equal(await b.add(write('d')), 'd@14');
  assert.deepEqual(commits, [['a', 'b', 'c'], ['d']]);
  // No write of a batch had settled when its commit ran.
  assert.deepEqual(settledAtCommit, [0, 3]);
});

test('a write the commit refuses fails alone; a commit that throws fails its whole batch', async () => {
  const refused = new Error('conflict on b');
  const b = new WriteBatcher({
    commit: (ws): WriteOutcome[] => ws.map((w, i) => (w.key === 'b' ? refused : i + 1)),
  });
  const [a, bad, c] = await Promise.allSettled([
    b.add(write('a')),
    b.add(write('b')),
    b.add(write('c')),
  ]);
  assert.deepEqual(a, { status: 'fulfilled', value: 'a@1' });
  assert.deepEqual(bad, { status: 'rejected', reason: refused });
  assert.deepEqual(c, { status: 'fulfilled', value: 'c@3' });
  const disk = new Error('SQLITE_FULL: database or disk is full');
  const failing = new WriteBatcher({
    commit: () => {
      throw disk;
    },
  });
  const results = await Promise.allSettled([failing.add(write('x')), failing.add(write('y'))]);
  assert.deepEqual(results, [
    { status: 'rejected', reason: disk },
    { status: 'rejected', reason: disk },
  ]);
});

test('flush() commits what is queued at once (before the database closes)', async () => {
  const commits: number[] = [];
  const b = new WriteBatcher({
    commit: (ws) => (commits.push(ws.length), ws.map((_, i) => i + 1)),
  });
  const p = b.add(write('a'));
  b.flush();
  assert.deepEqual(commits, [1]);
  assert.equal(await p, 'a@1');
  b.flush();
  assert.deepEqual(commits, [1]);
});
