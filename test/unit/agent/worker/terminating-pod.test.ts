// A pod whose deletion was requested is only torn down from then on, as the reference's pod
// workers do once a pod's termination is requested (pod_workers.go: a terminating pod never goes
// back to SyncPod): later updates of its API object (its status, written by the agent itself while
// it stops the containers) neither bring it back into the desired pods nor start it again, and a
// shorter grace period given later is a kill with that grace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeWorld, pod } from './harness.js';
import type { Pod } from '../../../../src/agent/pod/types.js';

function deleted(p: Pod, graceSeconds: number): Pod {
  return {
    ...p,
    metadata: {
      ...p.metadata,
      deletionTimestamp: '2026-01-01T00:00:00Z',
      deletionGracePeriodSeconds: graceSeconds,
    },
  };
}

test('a deleted pod`s later status updates and resyncs do not sync it again (no new sandbox, no started container)', async () => {
  const w = makeWorld();
  const p = pod('t1', { containers: [{ name: 'c', command: ['sleep'] }] });
  w.manager.handleUpdate({ op: 'ADD', source: 'api', pods: [p] });
  await w.settle();
  assert.equal(w.runtime.sandboxes.length, 1);
  w.manager.handleUpdate({ op: 'DELETE', source: 'api', pods: [deleted(p, 1)] });
  await w.advance(2000);
  const running = async () =>
    (await w.runtime.listContainers({ podUid: 't1' })).filter((c) => c.state === 'running');
  assert.deepEqual(await running(), [], 'the kill stopped everything');
  // the agent's own status write comes back as a status-only change of the terminating pod
  const echoed: Pod = { ...deleted(p, 1), status: { phase: 'Running', conditions: [] } };
  w.manager.handleUpdate({ op: 'RECONCILE', source: 'api', pods: [echoed] });
  w.manager.resync('t1');
  await w.advance(61_000); // past the periodic sync (syncFrequency 60 s in the harness)
  assert.equal(w.runtime.sandboxes.length, 1, 'no sandbox was run again');
  assert.deepEqual(await running(), []);
  assert.equal(w.manager.desiredPod('t1'), undefined);
});

test('a deleted pod updated with a shorter grace period is killed with it, not synced', async () => {
  const w = makeWorld();
  const p = pod('t2', { containers: [{ name: 'c', command: ['sleep'] }] });
  w.manager.handleUpdate({ op: 'ADD', source: 'api', pods: [p] });
  await w.settle();
  w.manager.handleUpdate({ op: 'DELETE', source: 'api', pods: [deleted(p, 30)] });
  w.manager.handleUpdate({ op: 'UPDATE', source: 'api', pods: [deleted(p, 0)] });
  await w.advance(1000);
  assert.equal(w.runtime.sandboxes.length, 1, 'no sandbox was run again');
  const left = (await w.runtime.listContainers({ podUid: 't2' })).filter(
    (c) => c.state === 'running',
  );
  assert.deepEqual(left, [], 'the grace of 0 took effect at once');
  assert.equal(w.manager.desiredPod('t2'), undefined);
});
