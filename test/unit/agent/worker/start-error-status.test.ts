// A container that could not start, in the pod's status as the kubelet 1.32.13 shows it on
// containerd (restartPolicy Never, command /no/such/binary): terminated, reason StartError, exit
// code 128, the runtime's message, startedAt the Unix epoch, no lastState. The sync's waiting
// reason (RunContainerError) shows only while the container will be started again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computePodStatus } from '../../../../src/agent/worker/pod-status.js';
import type { Pod } from '../../../../src/agent/pod/types.js';
import type { RuntimeContainer } from '../../../../src/agent/runtime/types.js';

const RUNC =
  'failed to create containerd task: failed to create shim task: OCI runtime create failed: ' +
  'runc create failed: unable to start container process: exec: "/no/such/binary": stat ' +
  '/no/such/binary: no such file or directory: unknown';

const failed: RuntimeContainer = {
  id: 'abc',
  podUid: 'u',
  podName: 'badcmd',
  podNamespace: 'ns',
  name: 'c',
  kind: 'app',
  attempt: 0,
  specHash: 'h',
  image: 'busybox',
  imageId: 'sha256:1',
  state: 'exited',
  exitCode: 128,
  reason: 'StartError',
  message: RUNC,
  createdAtMs: Date.UTC(2026, 11, 1, 5, 33, 53),
  finishedAtMs: Date.UTC(2026, 11, 1, 5, 33, 54),
  sandboxId: 's',
};

const statusWith = (restartPolicy: 'Never' | 'Always') => {
  const pod: Pod = {
    metadata: { uid: 'u', name: 'badcmd', namespace: 'ns' },
    spec: {
      restartPolicy,
      containers: [{ name: 'c', image: 'busybox', command: ['/no/such/binary'] }],
    },
  };
  return computePodStatus({
    pod,
    containers: [failed],
    runtimeType: 'containerd',
    waiting: new Map([['c', { reason: 'RunContainerError', message: RUNC }]]),
    ready: () => false,
    nowIso: '2026-12-01T05:34:00Z',
  }).containerStatuses[0];
};

test('restartPolicy Never: the terminated StartError, as the reference', () => {
  const s = statusWith('Never');
  assert.deepEqual(s?.state, {
    terminated: {
      exitCode: 128,
      reason: 'StartError',
      message: RUNC,
      startedAt: '1970-01-01T00:00:00Z',
      finishedAt: '2026-12-01T05:33:54.000Z',
      containerID: 'containerd://abc',
    },
  });
  assert.deepEqual(s?.lastState, {});
});

test("restartPolicy Always: waiting with the sync's reason, the failed start as lastState", () => {
  const s = statusWith('Always');
  assert.deepEqual(s?.state, { waiting: { reason: 'RunContainerError', message: RUNC } });
  assert.equal(s?.lastState.terminated?.reason, 'StartError');
});
