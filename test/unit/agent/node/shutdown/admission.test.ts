// While the node shuts down, new pods are refused with the reference's reason and message
// (nodeshutdown_manager.go Admit: NodeShutdown, "Pod was rejected as the node is shutting down.",
// and the kubelet's "Pod was rejected: " prefix); before, they run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE,
  NODE_SHUTDOWN_NOT_ADMITTED_REASON,
} from '../../../../../src/agent/node/shutdown/manager.js';
import { makeWorld, pod } from '../../worker/harness.js';

test('graceful node shutdown: a pod arriving while the node shuts down is Failed with NodeShutdown; before, it is admitted', async () => {
  const w = makeWorld();
  let shuttingDown = false;
  w.manager.addAdmitHandler(() =>
    shuttingDown
      ? {
          admit: false,
          reason: NODE_SHUTDOWN_NOT_ADMITTED_REASON,
          message: NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE,
        }
      : { admit: true },
  );
  w.manager.handleUpdate({
    op: 'ADD',
    source: 'file',
    pods: [pod('before', { containers: [{ name: 'c', image: 'busybox' }] })],
  });
  await w.settle();
  assert.notEqual(w.statuses.status('before')?.phase, 'Failed');
  shuttingDown = true;
  w.manager.handleUpdate({
    op: 'ADD',
    source: 'file',
    pods: [pod('during', { containers: [{ name: 'c', image: 'busybox' }] })],
  });
  await w.settle();
  const s = w.statuses.status('during');
  assert.deepEqual(
    [s?.phase, s?.reason, s?.message],
    ['Failed', 'NodeShutdown', 'Pod was rejected: Pod was rejected as the node is shutting down.'],
  );
});
