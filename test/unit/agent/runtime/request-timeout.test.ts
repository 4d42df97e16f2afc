// --runtime-request-timeout on the process:// runtime: each call answers within the timeout (stops
// with their grace period on top, exec with its own timeout on top); other members pass through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withRequestTimeout } from '../../../../src/agent/runtime/request-timeout.js';
import type { ContainerRuntime, ImageService } from '../../../../src/agent/runtime/types.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

type Rt = ContainerRuntime & ImageService;
const never = (): Promise<never> => new Promise<never>(() => undefined);

function fakeRuntime(): Rt {
  return {
    type: 'process',
    startContainer: never,
    stopContainer: never,
    exec: never,
    listContainers: () => Promise.resolve([]),
    onEvent: () => undefined,
    logPath: (id: string) => `/logs/${id}`,
  } as unknown as Rt;
}

async function settledAfter(clock: ManualClock, p: Promise<unknown>, ms: number): Promise<unknown> {
  let outcome: unknown = 'pending';
  p.then(
    () => {
      outcome = 'resolved';
    },
    (e: Error) => {
      outcome = e.message;
    },
  );
  await clock.waitForSleepers(1);
  clock.advance(ms);
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return outcome;
}

test('--runtime-request-timeout bounds process:// calls: the timeout, the grace period on top for stops, the exec timeout on top', async () => {
  const clock = new ManualClock();
  const rt = withRequestTimeout(fakeRuntime(), { timeoutMs: 2000, clock });
  const start = rt.startContainer('c1');
  assert.equal(await settledAfter(clock, start, 1999), 'pending');
  clock.advance(1);
  await assert.rejects(
    start,
    /^RuntimeError: process runtime startContainer: context deadline exceeded \(--runtime-request-timeout 2s\)$/,
  );
  const stop = rt.stopContainer('c', 30);
  assert.equal(
    await settledAfter(clock, stop, 31_999),
    'pending',
    'a stop may take its 30 s grace period plus the timeout',
  );
  clock.advance(1);
  await assert.rejects(stop, /stopContainer: context deadline exceeded/);
  const ex = rt.exec('c', ['true'], 5000);
  assert.equal(await settledAfter(clock, ex, 6999), 'pending');
  clock.advance(1);
  await assert.rejects(ex, /exec: context deadline exceeded/);
  assert.deepEqual(await rt.listContainers(), []);
  assert.equal(rt.logPath?.('x'), '/logs/x');
  assert.equal(rt.type, 'process');
  assert.equal(clock.pendingSleepers, 0, 'a call that answers in time leaves no deadline behind');
});

test('a timeout of 0 leaves the runtime as it is', () => {
  const rt = fakeRuntime();
  assert.equal(withRequestTimeout(rt, { timeoutMs: 0, clock: new ManualClock() }), rt);
});
