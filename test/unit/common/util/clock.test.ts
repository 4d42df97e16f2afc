import { test } from 'node:test';
import assert from 'node:assert/strict';
import { afterMs, everyMs, systemClock, type Clock } from '../../../../src/common/util/clock.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

test('afterMs: a one-shot timer fires when the manual clock passes its deadline, not before, and not once cancelled', () => {
  const clock = new ManualClock();
  const fired: string[] = [];
  afterMs(clock, 1000, () => fired.push('a'));
  const cancel = afterMs(clock, 1000, () => fired.push('b'));
  assert.equal(clock.pendingTimers, 2);
  assert.equal(clock.pendingSleepers, 0, 'a timer is not a sleeper');
  clock.advance(999);
  assert.deepEqual(fired, []);
  cancel();
  clock.advance(1);
  assert.deepEqual(fired, ['a']);
  assert.equal(clock.pendingTimers, 0);
});

test('everyMs: ticks once per period on the manual clock until stopped', () => {
  const clock = new ManualClock();
  let ticks = 0;
  const stop = everyMs(clock, 100, () => ticks++);
  clock.advance(100);
  clock.advance(100);
  clock.advance(50);
  assert.equal(ticks, 2);
  stop();
  clock.advance(1000);
  assert.equal(ticks, 2);
  assert.equal(clock.pendingTimers, 0);
});

test('afterMs on a clock without setTimer is made of a sleep, and a cancel aborts that sleep', async () => {
  const manual = new ManualClock();
  const sleepOnly: Clock = {
    now: () => manual.now(),
    nowMs: () => manual.nowMs(),
    sleep: (ms, signal) => manual.sleep(ms, signal),
  };
  const fired: number[] = [];
  afterMs(sleepOnly, 10, () => fired.push(1));
  const cancel = afterMs(sleepOnly, 10, () => fired.push(2));
  assert.equal(manual.pendingSleepers, 2);
  cancel();
  assert.equal(manual.pendingSleepers, 1);
  manual.advance(10);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(fired, [1]);
});

test('afterMs on the system clock fires after real time and can be cancelled', async () => {
  let cancelledFired = false;
  const cancel = afterMs(systemClock, 1, () => (cancelledFired = true));
  cancel();
  await new Promise<void>((resolve) => afterMs(systemClock, 5, resolve));
  assert.equal(cancelledFired, false);
});
