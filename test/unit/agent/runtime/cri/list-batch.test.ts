import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ListBatch } from '../../../../../src/agent/runtime/cri/list-batch.js';
import type { RuntimeContainer } from '../../../../../src/agent/runtime/types.js';

/** A runtime whose lists are answered by hand: each fetch records its filter and waits. */
function handRuntime() {
  const sent: {
    podUid: string | undefined;
    answer: (l: RuntimeContainer[]) => void;
    fail: (e: Error) => void;
  }[] = [];
  const fetch = (podUid?: string): Promise<RuntimeContainer[]> =>
    new Promise((answer, fail) => sent.push({ podUid, answer, fail }));
  return { sent, fetch };
}

const c = (podUid: string, id: string): RuntimeContainer =>
  ({
    id,
    podUid,
    name: id,
    kind: 'app',
    state: 'running',
    attempt: 0,
  }) as unknown as RuntimeContainer;
const ids = (l: RuntimeContainer[]): string[] => l.map((x) => x.id);
const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

test('callers that come while a list is in flight share the next one, each taking its pod', async () => {
  const rt = handRuntime();
  const b = new ListBatch(rt.fetch);
  const first = b.list('a');
  const waiting = [b.list('a'), b.list('b'), b.list('c')];
  assert.equal(rt.sent.length, 1, 'one list in flight at a time');
  assert.equal(rt.sent[0]?.podUid, 'a', 'a lone caller gets its own pod list');
  rt.sent[0]?.answer([c('a', 'a1')]);
  assert.deepEqual(ids(await first), ['a1']);
  await flush();
  assert.equal(rt.sent.length, 2);
  assert.equal(rt.sent[1]?.podUid, undefined, 'callers for several pods share the full list');
  rt.sent[1]?.answer([c('a', 'a2'), c('b', 'b1'), c('c', 'c1'), c('d', 'd1')]);
  assert.deepEqual((await Promise.all(waiting)).map(ids), [['a2'], ['b1'], ['c1']]);
  assert.deepEqual(b.counts, { lists: 2, callers: 4 });
});

test('a caller is never answered by a list sent before its call began', async () => {
  const rt = handRuntime();
  const b = new ListBatch(rt.fetch);
  const early = b.list('a');
  // the container a1 is made after the first list was sent: only the second list can show it
  const late = b.list('a');
  rt.sent[0]?.answer([]);
  assert.deepEqual(ids(await early), []);
  await flush();
  assert.equal(rt.sent.length, 2, 'the late caller waits for a list of its own');
  assert.equal(rt.sent[1]?.podUid, 'a', 'callers all for one pod share that pod list');
  rt.sent[1]?.answer([c('a', 'a1')]);
  assert.deepEqual(ids(await late), ['a1']);
});

test('an unfiltered caller gets everything; each caller gets its own array', async () => {
  const rt = handRuntime();
  const b = new ListBatch(rt.fetch);
  const busy = b.list('z');
  const [all, mine, again] = [b.list(), b.list('a'), b.list('a')];
  rt.sent[0]?.answer([]);
  await busy;
  await flush();
  assert.equal(rt.sent[1]?.podUid, undefined, 'an unfiltered caller makes the shared list full');
  rt.sent[1]?.answer([c('a', 'a1'), c('b', 'b1')]);
  assert.deepEqual(ids(await all), ['a1', 'b1']);
  assert.deepEqual(ids(await mine), ['a1']);
  assert.deepEqual(ids(await again), ['a1']);
  const [one, two, three] = [b.list('a'), b.list('a'), b.list('a')];
  rt.sent[2]?.answer([]);
  await one;
  await flush();
  assert.equal(rt.sent[3]?.podUid, 'a', 'two callers for one pod share that pod list');
  rt.sent[3]?.answer([c('a', 'a1'), c('a', 'a2')]);
  (await two).pop();
  assert.deepEqual(ids(await three), ['a1', 'a2'], "a caller cutting its array cuts no other's");
});

test('a failed list fails the callers it was for, and the next callers get a list of their own', async () => {
  const rt = handRuntime();
  const b = new ListBatch(rt.fetch);
  const first = b.list('a');
  const second = [b.list('b'), b.list('c')];
  rt.sent[0]?.fail(new Error('runtime down'));
  await assert.rejects(first, /runtime down/);
  await flush();
  const third = b.list('d');
  rt.sent[1]?.fail(new Error('still down'));
  for (const p of second) await assert.rejects(p, /still down/);
  await flush();
  assert.equal(rt.sent.length, 3);
  rt.sent[2]?.answer([c('d', 'd1')]);
  assert.deepEqual(ids(await third), ['d1']);
});
