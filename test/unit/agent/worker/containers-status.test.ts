// Init containers, sidecars, activeDeadlineSeconds and termination messages in the pod workers,
// with the reference's condition reasons and messages (status/generate.go, kubelet_pods.go
// getPhase, active_deadline.go, kuberuntime_container.go getTerminationMessage).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { makeWorld, pod } from './harness.js';
import type { PodCondition, PodStatus } from '../../../../src/agent/pod/types.js';
import {
  limitTerminationMessages,
  logTailMessage,
  terminationMessage,
} from '../../../../src/agent/worker/termination-message.js';

function condition(s: PodStatus | undefined, type: PodCondition['type']) {
  const c = s?.conditions.find((x) => x.type === type);
  return c === undefined ? undefined : { status: c.status, reason: c.reason, message: c.message };
}

test('init containers: Initialized False with "containers with incomplete status: [init1 init2]", then True', async () => {
  const w = makeWorld();
  const p = pod('u1', {
    restartPolicy: 'Never',
    initContainers: [
      { name: 'init1', command: ['a'] },
      { name: 'init2', command: ['b'] },
    ],
    containers: [{ name: 'run1', command: ['c'] }],
  });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  let s = w.statuses.status('u1');
  assert.equal(s?.phase, 'Pending');
  assert.deepEqual(condition(s, 'Initialized'), {
    status: 'False',
    reason: 'ContainersNotInitialized',
    message: 'containers with incomplete status: [init1 init2]',
  });
  assert.deepEqual(condition(s, 'Ready'), {
    status: 'False',
    reason: 'ContainersNotReady',
    message: 'containers with unready status: [run1]',
  });
  assert.deepEqual(condition(s, 'ContainersReady'), condition(s, 'Ready'));
  assert.deepEqual(condition(s, 'PodReadyToStartContainers'), {
    status: 'True',
    reason: undefined,
    message: undefined,
  });
  w.runtime.exit(w.runtime.running('init1')!.id, 0);
  await w.settle();
  assert.equal(
    condition(w.statuses.status('u1'), 'Initialized')?.message,
    'containers with incomplete status: [init2]',
  );
  w.runtime.exit(w.runtime.running('init2')!.id, 0);
  await w.settle();
  s = w.statuses.status('u1');
  assert.equal(s?.phase, 'Running');
  assert.deepEqual(condition(s, 'Initialized'), {
    status: 'True',
    reason: undefined,
    message: undefined,
  });
  assert.equal(s?.initContainerStatuses?.[0]?.ready, true);
  assert.equal(s?.initContainerStatuses?.[0]?.state.terminated?.reason, 'Completed');
  w.runtime.exit(w.runtime.running('run1')!.id, 0);
  await w.settle();
  s = w.statuses.status('u1');
  assert.equal(s?.phase, 'Succeeded');
  assert.equal(condition(s, 'Initialized')?.reason, 'PodCompleted');
  assert.equal(condition(s, 'Ready')?.reason, 'PodCompleted');
  assert.equal(s?.qosClass, 'BestEffort');
});

test('a failed pod: Ready and ContainersReady False with reason PodFailed', async () => {
  const w = makeWorld();
  const p = pod('u1', { restartPolicy: 'Never', containers: [{ name: 'app', command: ['x'] }] });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  w.runtime.exit(w.runtime.running('app')!.id, 3);
  await w.settle();
  const s = w.statuses.status('u1');
  assert.equal(s?.phase, 'Failed');
  assert.equal(condition(s, 'Ready')?.reason, 'PodFailed');
  assert.equal(condition(s, 'ContainersReady')?.reason, 'PodFailed');
  assert.equal(s?.containerStatuses[0]?.state.terminated?.reason, 'Error');
});

test('sidecars: started in order without waiting to complete, restarted when they exit, stopped after the app containers', async () => {
  const w = makeWorld();
  const p = pod('u1', {
    restartPolicy: 'Never',
    initContainers: [
      { name: 'side', command: ['s'], restartPolicy: 'Always' },
      { name: 'init', command: ['i'] },
    ],
    containers: [{ name: 'app', command: ['a'] }],
  });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  assert.ok(w.runtime.running('side'), 'the sidecar runs');
  assert.ok(w.runtime.running('init'), 'the next init container starts while the sidecar runs');
  assert.equal(
    condition(w.statuses.status('u1'), 'Initialized')?.message,
    'containers with incomplete status: [init]',
  );
  w.runtime.exit(w.runtime.running('init')!.id, 0);
  await w.settle();
  assert.ok(w.runtime.running('app'));
  let s = w.statuses.status('u1');
  assert.equal(s?.phase, 'Running');
  assert.equal(s?.initContainerStatuses?.[0]?.started, true);
  assert.equal(s?.initContainerStatuses?.[0]?.ready, true);
  // a sidecar that exits is restarted whatever the pod's restartPolicy
  w.runtime.exit(w.runtime.running('side')!.id, 1);
  await w.settle();
  assert.equal(w.runtime.instances('side').length, 2);
  assert.ok(w.runtime.running('side'));
  // the app completes: the sidecar is stopped and the pod Succeeded
  w.runtime.exit(w.runtime.running('app')!.id, 0);
  await w.settle();
  assert.equal(w.runtime.running('side'), undefined);
  s = w.statuses.status('u1');
  assert.equal(s?.phase, 'Succeeded');
});

test('activeDeadlineSeconds: past it the pod is Failed, DeadlineExceeded with the reference message, containers killed', async () => {
  const w = makeWorld();
  const events: string[] = [];
  w.statuses.onPodEvent((e) => events.push(`${e.type} ${e.reason} ${e.message}`));
  const p = pod('u1', { activeDeadlineSeconds: 5, containers: [{ name: 'app', command: ['x'] }] });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  assert.equal(w.statuses.status('u1')?.phase, 'Running');
  await w.advance(4_000);
  assert.equal(w.statuses.status('u1')?.phase, 'Running');
  await w.advance(1_000);
  const s = w.statuses.status('u1');
  assert.equal(s?.phase, 'Failed');
  assert.equal(s?.reason, 'DeadlineExceeded');
  assert.equal(s?.message, 'Pod was active on the node longer than the specified deadline');
  assert.equal(w.runtime.running('app'), undefined);
  assert.deepEqual(events, [
    'Normal DeadlineExceeded Pod was active on the node longer than the specified deadline',
    // the reference's killContainer, as the kill begins
    'Normal Killing Stopping container app',
  ]);
});

test('termination message: the file the container wrote, into state.terminated.message', async () => {
  const w = makeWorld();
  const p = pod('u1', { restartPolicy: 'Never', containers: [{ name: 'app', command: ['x'] }] });
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  const app = w.runtime.running('app')!;
  assert.ok(app.terminationMessageFile, 'a file was made for the container');
  writeFileSync(app.terminationMessageFile, 'DONE');
  w.runtime.exit(app.id, 0);
  await w.settle();
  assert.equal(w.statuses.status('u1')?.containerStatuses[0]?.state.terminated?.message, 'DONE');
});

test('FallbackToLogsOnError: the log tail when the file is empty and the container failed; never on success', async () => {
  const w = makeWorld();
  const p = pod('u1', {
    restartPolicy: 'Never',
    containers: [
      { name: 'bad', command: ['x'], terminationMessagePolicy: 'FallbackToLogsOnError' },
      { name: 'good', command: ['x'], terminationMessagePolicy: 'FallbackToLogsOnError' },
    ],
  });
  w.runtime.output.set('bad', 'first\nDONE\n');
  w.runtime.output.set('good', 'OK\n');
  w.manager.handleUpdate({ op: 'ADD', source: 'file', pods: [p] });
  await w.settle();
  w.runtime.exit(w.runtime.running('bad')!.id, 1);
  w.runtime.exit(w.runtime.running('good')!.id, 0);
  await w.settle();
  const [bad, good] = w.statuses.status('u1')!.containerStatuses;
  assert.equal(bad?.state.terminated?.message, 'first\nDONE\n');
  assert.equal(good?.state.terminated?.message, undefined);
});

test('termination message limits: the last 4096 bytes of the file; the last 80 log lines within 2048 bytes', async () => {
  const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n') + '\n';
  const tail = logTailMessage(lines);
  assert.ok(tail.startsWith('line 20\n'));
  assert.ok(tail.endsWith('line 99\n'));
  const long = `${'x'.repeat(100)}\n`.repeat(40);
  assert.equal(Buffer.byteLength(logTailMessage(long)), 2048);
  const { scratchRoot } = await import('./harness.js');
  const file = `${scratchRoot()}/msg`;
  writeFileSync(file, `${'a'.repeat(5000)}END`);
  const msg = await terminationMessage({
    container: { name: 'c' },
    instance: {
      id: 'c1',
      podUid: 'u',
      podName: 'p',
      podNamespace: 'd',
      name: 'c',
      kind: 'app',
      attempt: 0,
      specHash: '',
      image: '',
      imageId: '',
      state: 'exited',
      exitCode: 0,
      createdAtMs: 0,
      terminationMessageFile: file,
    },
    logs: () => Promise.reject(new Error('not read')),
  });
  assert.equal(msg.length, 4096);
  assert.ok(msg.endsWith('END'));
});

test("termination messages in the pod's status: each cut to 12 KiB over the pod's containers (the reference's normalizeStatus)", () => {
  const p = pod('tm', {
    initContainers: [{ name: 'i', command: ['x'] }],
    containers: [
      { name: 'a', command: ['x'] },
      { name: 'b', command: ['x'] },
    ],
  });
  const term = (message: string) => ({
    terminated: { exitCode: 1, reason: 'Error', message },
  });
  const status: PodStatus = {
    phase: 'Failed',
    conditions: [],
    initContainerStatuses: [
      {
        name: 'i',
        state: term('é'.repeat(3000)),
        lastState: {},
        ready: false,
        restartCount: 0,
        image: '',
        imageID: '',
      },
    ],
    containerStatuses: [
      {
        name: 'a',
        state: term('x'.repeat(5000)),
        lastState: term('y'.repeat(4097)),
        ready: false,
        restartCount: 1,
        image: '',
        imageID: '',
      },
      {
        name: 'b',
        state: term('short'),
        lastState: {},
        ready: false,
        restartCount: 0,
        image: '',
        imageID: '',
      },
    ],
  };
  const out = limitTerminationMessages(p, status);
  // 12288 / 3 containers = 4096 bytes each
  assert.equal(out.containerStatuses[0]?.state.terminated?.message, 'x'.repeat(4096));
  assert.equal(out.containerStatuses[0]?.lastState.terminated?.message, 'y'.repeat(4096));
  assert.equal(out.containerStatuses[1]?.state.terminated?.message, 'short');
  // a 2-byte character cut in two at byte 4096: 2048 whole ones
  assert.equal(out.initContainerStatuses?.[0]?.state.terminated?.message, 'é'.repeat(2048));
  // an ephemeral container counts too: 12288 / 4
  const withDebug = { ...p, spec: { ...p.spec, ephemeralContainers: [{ name: 'd' }] } };
  assert.equal(
    limitTerminationMessages(withDebug, status).containerStatuses[0]?.state.terminated?.message,
    'x'.repeat(3072),
  );
});
