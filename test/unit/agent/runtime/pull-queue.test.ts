// Image pull concurrency: serializeImagePulls, maxParallelImagePulls, or no limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PullQueue } from '../../../../src/agent/runtime/docker/pull-queue.js';

async function most(queue: PullQueue, n: number): Promise<number> {
  let inFlight = 0;
  let top = 0;
  const gates: (() => void)[] = [];
  const runs = Array.from({ length: n }, (_, i) =>
    queue.run(async () => {
      top = Math.max(top, ++inFlight);
      await new Promise<void>((r) => gates.push(r));
      inFlight--;
      return i;
    }),
  );
  // release the pulls one by one as they start, until all have run
  let released = 0;
  while (released < n) {
    await new Promise((r) => setImmediate(r));
    const g = gates.shift();
    if (g !== undefined) {
      g();
      released++;
    }
  }
  assert.deepEqual(
    await Promise.all(runs),
    Array.from({ length: n }, (_, i) => i),
  );
  return top;
}

test('maxParallelImagePulls: at most that many pulls at once with serializeImagePulls false; one when serialized', async () => {
  assert.equal(await most(new PullQueue({ serialize: true }), 5), 1);
  assert.equal(await most(new PullQueue({ serialize: false, maxParallel: 2 }), 6), 2);
  assert.equal(await most(new PullQueue({ serialize: false }), 4), 4);
});

test('a failed pull frees its slot', async () => {
  const q = new PullQueue({ serialize: false, maxParallel: 1 });
  await assert.rejects(
    q.run(() => Promise.reject(new Error('registry down'))),
    /registry down/,
  );
  assert.equal(await q.run(() => Promise.resolve('next')), 'next');
  assert.equal(q.inFlight, 0);
});
