import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProbeManager } from '../../../../src/agent/worker/probes.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { FakeRuntime } from './fake-runtime.js';
import type { Container, Pod } from '../../../../src/agent/pod/types.js';

const pod: Pod = {
  metadata: { uid: 'u', name: 'p', namespace: 'default' },
  spec: { containers: [{ name: 'c' }] },
};

async function tick(clock: ManualClock, ms: number): Promise<void> {
  await clock.waitForSleepers(1);
  clock.advance(ms);
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

test('liveness: restart only after failureThreshold failures in a row', async () => {
  const clock = new ManualClock();
  const rt = new FakeRuntime(clock);
  const changes: string[] = [];
  const pm = new ProbeManager({
    runtime: rt,
    clock,
    logger: recordingLogger(),
    onChange: (uid) => changes.push(uid),
  });
  rt.execExit.set('live', 1);
  const c: Container = {
    name: 'c',
    livenessProbe: { exec: { command: ['live'] }, periodSeconds: 5, failureThreshold: 3 },
  };
  pm.ensure(pod, c, 'id1', '127.0.0.1');
  await tick(clock, 0); // initial delay 0
  assert.equal(pm.shouldRestart('id1'), undefined, '1 failure');
  await tick(clock, 5000);
  assert.equal(pm.shouldRestart('id1'), undefined, '2 failures');
  await tick(clock, 5000);
  assert.equal(pm.shouldRestart('id1'), 'liveness', '3 failures');
  assert.deepEqual(changes, ['u']);
  pm.stopAll();
});

test('readiness waits for the startup probe, then needs successThreshold successes', async () => {
  const clock = new ManualClock();
  const rt = new FakeRuntime(clock);
  const pm = new ProbeManager({
    runtime: rt,
    clock,
    logger: recordingLogger(),
    onChange: () => undefined,
  });
  rt.execExit.set('started', 1);
  const c: Container = {
    name: 'c',
    startupProbe: { exec: { command: ['started'] }, periodSeconds: 1, failureThreshold: 100 },
    readinessProbe: { exec: { command: ['ready'] }, periodSeconds: 1, successThreshold: 2 },
  };
  pm.ensure(pod, c, 'id2', '127.0.0.1');
  for (let i = 0; i < 3; i++) await tick(clock, 1000);
  assert.equal(
    rt.execCalls.includes('ready'),
    false,
    'readiness does not run before startup succeeds',
  );
  assert.equal(pm.ready('id2'), false);
  rt.execExit.set('started', 0);
  for (let i = 0; i < 6 && !pm.ready('id2'); i++) await tick(clock, 1000);
  assert.equal(pm.ready('id2'), true);
  assert.ok(rt.execCalls.filter((w) => w === 'ready').length >= 2, 'two successes needed');
  pm.stopAll();
});

test("each failed attempt is the reference's Warning Unhealthy on the container: '<Kind> probe failed: <output>', 'errored' when the probe could not run", async () => {
  const clock = new ManualClock();
  const rt = new FakeRuntime(clock);
  const events: string[] = [];
  const pm = new ProbeManager({
    runtime: rt,
    clock,
    logger: recordingLogger(),
    onChange: () => undefined,
    recordEvent: (e) => events.push(`${e.fieldPath} ${e.type} ${e.reason}: ${e.message}`),
  });
  rt.execExit.set('ready', 1);
  rt.execOutput.set('ready', 'not yet');
  const sidecarPod: Pod = {
    metadata: { uid: 'u', name: 'p', namespace: 'default' },
    spec: {
      initContainers: [{ name: 'side', restartPolicy: 'Always' }],
      containers: [{ name: 'c' }],
    },
  };
  pm.ensure(
    sidecarPod,
    { name: 'c', readinessProbe: { exec: { command: ['ready'] }, periodSeconds: 1 } },
    'id1',
    '127.0.0.1',
  );
  pm.ensure(
    sidecarPod,
    { name: 'side', livenessProbe: { exec: { command: ['live'] }, periodSeconds: 1 } },
    'id2',
    '127.0.0.1',
  );
  const realExec = rt.exec.bind(rt);
  rt.exec = (id, command) =>
    command[0] === 'live'
      ? Promise.reject(new Error('no running task found'))
      : realExec(id, command);
  await tick(clock, 0);
  await tick(clock, 1000);
  pm.stopAll();
  assert.deepEqual([...new Set(events)].sort(), [
    'spec.containers{c} Warning Unhealthy: Readiness probe failed: not yet',
    'spec.initContainers{side} Warning Unhealthy: Liveness probe errored: no running task found',
  ]);
  assert.ok(events.length >= 3, 'one event per failed attempt');
});
