// The active pods the eviction and node shutdown managers share: the unfinished desired pods, and
// a kill that writes the caller's status before it stops the pod's running containers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActivePods } from '../../../../src/agent/worker/active-pods.js';
import type { Pod, PodStatus } from '../../../../src/agent/pod/types.js';
import type { RuntimeContainer } from '../../../../src/agent/runtime/types.js';

const pod = (uid: string): Pod => ({
  metadata: { name: uid, namespace: 'default', uid },
  spec: { containers: [{ name: 'c', image: 'busybox' }] },
});
const container = (
  id: string,
  podUid: string,
  kind: RuntimeContainer['kind'],
  state: RuntimeContainer['state'],
): RuntimeContainer => ({
  id,
  podUid,
  podName: podUid,
  podNamespace: 'default',
  name: kind === 'sandbox' ? '' : 'c',
  kind,
  attempt: 0,
  specHash: 'h',
  image: 'busybox',
  imageId: 'i',
  state,
  createdAtMs: 0,
});

function world(statuses: Record<string, PodStatus>, containers: RuntimeContainer[]) {
  const events: string[] = [];
  const pods = [pod('running'), pod('failed'), pod('succeeded'), pod('new')];
  const active = new ActivePods({
    pods: { desiredPods: () => pods, status: (uid) => statuses[uid] },
    statuses: {
      set: (p, s) => events.push(`status ${p.metadata.uid} ${s.phase}/${s.reason ?? ''}`),
      recordEvent: (e) => events.push(`event ${e.fieldPath ?? ''} ${e.reason}: ${e.message}`),
    },
    runtime: {
      listContainers: (f) =>
        Promise.resolve(containers.filter((c) => f?.podUid === undefined || c.podUid === f.podUid)),
      stopContainer: (id, grace) => {
        events.push(`stop ${id} ${grace}`);
        return Promise.resolve();
      },
    },
  });
  return { active, events };
}

const status = (phase: PodStatus['phase']): PodStatus => ({
  phase,
  conditions: [],
  containerStatuses: [],
});

test('active pods: the desired pods neither Failed nor Succeeded (a pod without a status counts)', () => {
  const { active } = world(
    { running: status('Running'), failed: status('Failed'), succeeded: status('Succeeded') },
    [],
  );
  assert.deepEqual(
    active.list().map((p) => p.metadata.uid),
    ['running', 'new'],
  );
});

test('kill: the status first (from Pending when the pod has none), then only the running app containers stop with the grace period, each with a Killing event', async () => {
  const containers = [
    container('sb', 'new', 'sandbox', 'running'),
    container('app', 'new', 'app', 'running'),
    container('dead', 'new', 'app', 'exited'),
    container('other', 'running', 'app', 'running'),
  ];
  const { active, events } = world({}, containers);
  let seen: PodStatus | undefined;
  await active.kill('new', 7, (current) => {
    seen = current;
    return { ...current, phase: 'Failed', reason: 'Evicted' };
  });
  assert.equal(seen?.phase, 'Pending');
  // the reference's Killing as each stop begins
  assert.deepEqual(events, [
    'status new Failed/Evicted',
    'event spec.containers{c} Killing: Stopping container c',
    'stop app 7',
  ]);
});

test('kill: a pod no longer desired is left alone', async () => {
  const { active, events } = world({}, [container('x', 'gone', 'app', 'running')]);
  await active.kill('gone', 1, () => assert.fail('no status for a pod that is not desired'));
  assert.deepEqual(events, []);
});
