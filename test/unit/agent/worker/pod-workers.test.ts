import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PodWorkers } from '../../../../src/agent/worker/pod-workers.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import type { Pod } from '../../../../src/agent/pod/types.js';

const pod = (uid: string, v: string): Pod => ({
  metadata: { uid, name: uid, namespace: 'default', labels: { v } },
  spec: { containers: [{ name: 'c' }] },
});

test('one serial worker per UID; while busy only the newest update is kept', async () => {
  const log: string[] = [];
  let running = 0;
  let maxParallelSameUid = 0;
  const gates: (() => void)[] = [];
  const workers = new PodWorkers({
    syncPod: async (p) => {
      running++;
      maxParallelSameUid = Math.max(maxParallelSameUid, running);
      log.push(`sync ${p.metadata.uid} ${p.metadata.labels?.v}`);
      await new Promise<void>((r) => gates.push(r));
      running--;
      return {};
    },
    killPod: async (p) => {
      log.push(`kill ${p.metadata.uid}`);
    },
    clock: new ManualClock(),
    logger: recordingLogger(),
  });
  workers.updatePod({ type: 'sync', pod: pod('a', '1') });
  workers.updatePod({ type: 'sync', pod: pod('a', '2') });
  workers.updatePod({ type: 'sync', pod: pod('a', '3') });
  workers.updatePod({ type: 'kill', pod: pod('a', '4') });
  workers.updatePod({ type: 'sync', pod: pod('a', '5') });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(log, ['sync a 1']);
  gates.shift()?.();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(log, ['sync a 1', 'sync a 5'], 'updates 2-4 were superseded by 5');
  gates.shift()?.();
  await workers.idle();
  assert.equal(maxParallelSameUid, 1);
});

test('a failing sync is retried with a doubling back-off', async () => {
  const clock = new ManualClock();
  let calls = 0;
  const workers = new PodWorkers({
    syncPod: async () => {
      calls++;
      if (calls < 3) throw new Error('engine down');
      return {};
    },
    killPod: async () => undefined,
    clock,
    logger: recordingLogger(),
  });
  workers.updatePod({ type: 'sync', pod: pod('b', '1') });
  await workers.idle();
  await clock.waitForSleepers(1);
  clock.advance(1000);
  await new Promise((r) => setImmediate(r));
  await workers.idle();
  await clock.waitForSleepers(1);
  clock.advance(2000);
  await new Promise((r) => setImmediate(r));
  await workers.idle();
  assert.equal(calls, 3);
  assert.deepEqual(clock.sleeps, [1000, 2000]);
});
