import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { backoffDelayMs, BackoffSequence } from '../../../../src/common/util/backoff.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { fuzzParams } from '../../../helpers/fuzz-runs.js';

test('delays double from the initial one and stop at the cap', () => {
  const p = { initialMs: 100, maxMs: 1000 };
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5, 60].map((a) => backoffDelayMs(p, a)),
    [100, 200, 400, 800, 1000, 1000, 1000],
  );
  assert.deepEqual(
    [0, 1, 2].map((a) => backoffDelayMs({ ...p, factor: 3 }, a)),
    [100, 300, 900],
  );
});

test("jitter: up adds up to the fraction (the reference's wait.Backoff Jitter), down takes up to it off", () => {
  const p = { initialMs: 2000, maxMs: 32_000 };
  assert.equal(
    backoffDelayMs({ ...p, jitter: { up: 0.1 } }, 0, () => 0),
    2000,
  );
  assert.equal(
    backoffDelayMs({ ...p, jitter: { up: 0.1 } }, 0, () => 0.999999),
    2200,
  );
  assert.equal(
    backoffDelayMs({ ...p, jitter: { down: 0.5 } }, 1, () => 0),
    2000,
  );
  assert.equal(
    backoffDelayMs({ ...p, jitter: { down: 0.5 } }, 1, () => 0.5),
    3000,
  );
});

test('every delay is finite, at least (1 - down) of its base and at most the cap plus up', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 10_000 }),
      fc.integer({ min: 1, max: 1_000_000 }),
      fc.nat({ max: 10_000 }),
      fc.double({ min: 0, max: 0.999, noNaN: true }),
      (initialMs, extra, attempt, r) => {
        const maxMs = initialMs + extra;
        const d = backoffDelayMs(
          { initialMs, maxMs, jitter: { up: 0.2, down: 0.5 } },
          attempt,
          () => r,
        );
        return (
          Number.isFinite(d) && d >= Math.floor(initialMs * 0.5) && d <= Math.ceil(maxMs * 1.2)
        );
      },
    ),
    fuzzParams(500),
  );
});

test('a sequence waits its delays on the clock and starts over after reset', async () => {
  const clock = new ManualClock();
  const seq = new BackoffSequence({ clock, policy: { initialMs: 500, maxMs: 2000 } });
  assert.equal(seq.peekMs(), 500);
  let done = false;
  const slept = seq.sleep().then((ms) => {
    done = true;
    return ms;
  });
  clock.advance(499);
  await Promise.resolve();
  assert.equal(done, false, 'still waiting before 500 ms');
  clock.advance(1);
  assert.equal(await slept, 500);
  assert.deepEqual([seq.nextMs(), seq.nextMs(), seq.nextMs()], [1000, 2000, 2000]);
  assert.equal(seq.failures, 4);
  seq.reset();
  assert.equal(seq.nextMs(), 500);
});

test('a sequence sleep rejects when its signal aborts', async () => {
  const clock = new ManualClock();
  const seq = new BackoffSequence({ clock, policy: { initialMs: 500, maxMs: 2000 } });
  const ac = new AbortController();
  const p = seq.sleep(ac.signal);
  ac.abort(new Error('stopping'));
  await assert.rejects(p);
});
