// Readiness gates: Ready waits for the conditions the gates name (set by another party in the API
// status), with the reference's reason and messages (status/generate.go GeneratePodReadyCondition);
// conditions the agent does not own are kept, and the status patch sends only what changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeWorld, pod } from './harness.js';
import type { Pod, PodCondition, PodStatus } from '../../../../src/agent/pod/types.js';
import { statusPatch } from '../../../../src/agent/worker/status-patch.js';
import { restartGrace } from '../../../../src/agent/worker/restart-grace.js';
import { gateConditionsChanged } from '../../../../src/agent/worker/readiness-gates.js';

function ready(s: PodStatus | undefined) {
  const c = s?.conditions.find((x) => x.type === 'Ready');
  return c === undefined ? undefined : { status: c.status, reason: c.reason, message: c.message };
}

function withConditions(p: Pod, conditions: Partial<PodCondition>[]): Pod {
  return { ...p, status: { phase: 'Running', conditions } };
}

test('readiness gates: Ready False (ReadinessGatesNotReady, the reference messages) until every gate condition is True', async () => {
  const w = makeWorld();
  const p = pod('g1', {
    readinessGates: [{ conditionType: 'example.com/feature-1' }, { conditionType: 'gate-2' }],
    containers: [{ name: 'c', command: ['sleep'] }],
  });
  w.manager.handleUpdate({ op: 'ADD', source: 'api', pods: [p] });
  await w.settle();
  let s = w.statuses.status('g1');
  assert.equal(s?.conditions.find((c) => c.type === 'ContainersReady')?.status, 'True');
  assert.deepEqual(ready(s), {
    status: 'False',
    reason: 'ReadinessGatesNotReady',
    message:
      'corresponding condition of pod readiness gate "example.com/feature-1" does not exist., corresponding condition of pod readiness gate "gate-2" does not exist.',
  });

  // a controller sets one gate False and the other True: a status-only change (RECONCILE)
  const gated = withConditions(p, [
    { type: 'example.com/feature-1', status: 'False', reason: 'Waiting' },
    { type: 'gate-2', status: 'True' },
    { type: 'Ready', status: 'False' },
  ]);
  w.manager.handleUpdate({ op: 'RECONCILE', source: 'api', pods: [gated] });
  await w.settle();
  s = w.statuses.status('g1');
  assert.deepEqual(ready(s), {
    status: 'False',
    reason: 'ReadinessGatesNotReady',
    message: 'the status of pod readiness gate "example.com/feature-1" is not "True", but False',
  });
  // the foreign conditions come first, as sent; the agent's own Ready is not taken from the API
  assert.deepEqual(
    s?.conditions.map((c) => c.type),
    [
      'example.com/feature-1',
      'gate-2',
      'PodReadyToStartContainers',
      'Initialized',
      'Ready',
      'ContainersReady',
      'PodScheduled',
    ],
  );
  assert.equal(s?.conditions[0]?.reason, 'Waiting');

  w.manager.handleUpdate({
    op: 'RECONCILE',
    source: 'api',
    pods: [
      withConditions(p, [
        { type: 'example.com/feature-1', status: 'True' },
        { type: 'gate-2', status: 'True' },
      ]),
    ],
  });
  await w.settle();
  assert.deepEqual(ready(w.statuses.status('g1')), {
    status: 'True',
    reason: undefined,
    message: undefined,
  });
});

test('readiness gates: while the containers are not ready, Ready says so as ContainersReady does', async () => {
  const w = makeWorld();
  const p = pod('g2', {
    readinessGates: [{ conditionType: 'gate' }],
    containers: [{ name: 'c', command: ['sleep'], readinessProbe: { exec: { command: ['x'] } } }],
  });
  w.manager.handleUpdate({ op: 'ADD', source: 'api', pods: [p] });
  await w.settle();
  assert.deepEqual(ready(w.statuses.status('g2')), {
    status: 'False',
    reason: 'ContainersNotReady',
    message: 'containers with unready status: [c]',
  });
});

test('malformed foreign conditions in the API status are left out, never a crash', async () => {
  const w = makeWorld();
  const p = pod('g3', {
    readinessGates: [{ conditionType: 'gate' }],
    containers: [{ name: 'c', command: ['sleep'] }],
  });
  const hostile: Pod = {
    ...p,
    status: {
      conditions: [null, 7, { type: 'gate', status: 'Maybe' }, { type: 5 }, { status: 'True' }],
    },
  };
  w.manager.handleUpdate({ op: 'ADD', source: 'api', pods: [hostile] });
  await w.settle();
  const s = w.statuses.status('g3');
  assert.equal(ready(s)?.reason, 'ReadinessGatesNotReady');
  assert.equal(s?.conditions.length, 5, 'only the agent’s own five');
});

test('the status patch: unchanged foreign conditions are not sent (merge by type), changed ones are, a reason or message a condition lacks is removed (null); pod IPs replace the list', () => {
  const p = withConditions(pod('g4', { containers: [{ name: 'c' }] }), [
    { type: 'gate', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
    { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' },
  ]);
  const status: PodStatus = {
    phase: 'Running',
    conditions: [
      { type: 'gate', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
      { type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet' },
      { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:01Z' },
    ],
    podIP: '10.0.0.2',
    podIPs: [{ ip: '10.0.0.2' }],
    hostIPs: [{ ip: '127.0.0.1' }],
    containerStatuses: [],
  };
  assert.deepEqual(statusPatch(p, status), {
    status: {
      phase: 'Running',
      conditions: [
        {
          type: 'DisruptionTarget',
          status: 'True',
          reason: 'TerminationByKubelet',
          message: null,
        },
        {
          type: 'Ready',
          status: 'True',
          lastTransitionTime: '2026-01-01T00:00:01Z',
          reason: null,
          message: null,
        },
      ],
      podIP: '10.0.0.2',
      podIPs: [{ $patch: 'replace' }, { ip: '10.0.0.2' }],
      hostIPs: [{ $patch: 'replace' }, { ip: '127.0.0.1' }],
      containerStatuses: [],
    },
  });
});

test('restart grace: a pending deletion`s, else the failed liveness/startup probe`s own terminationGracePeriodSeconds, else the pod`s (setTerminationGracePeriod)', () => {
  const c = {
    name: 'c',
    livenessProbe: { exec: { command: ['x'] }, terminationGracePeriodSeconds: 3 },
    startupProbe: { exec: { command: ['x'] }, terminationGracePeriodSeconds: 7 },
    readinessProbe: { exec: { command: ['x'] } },
  };
  const p = pod('g5', { terminationGracePeriodSeconds: 60, containers: [c] });
  assert.equal(restartGrace(p, c, 'liveness'), 3);
  assert.equal(restartGrace(p, c, 'startup'), 7);
  assert.equal(restartGrace(p, c, 'readiness'), 60);
  assert.equal(restartGrace(p, c, undefined), 60, 'a spec change: the pod`s');
  assert.equal(
    restartGrace(p, { name: 'c', livenessProbe: { exec: { command: ['x'] } } }, 'liveness'),
    60,
  );
  const deleting: Pod = { ...p, metadata: { ...p.metadata, deletionGracePeriodSeconds: 1 } };
  assert.equal(restartGrace(deleting, c, 'liveness'), 1);
});

test('a status-only change re-evaluates Ready only when a gate`s condition changed, not on the echo of the agent`s own write', () => {
  const gated = pod('g6', {
    readinessGates: [{ conditionType: 'gate' }],
    containers: [{ name: 'c' }],
  });
  const withGate = (status: 'True' | 'False', ready: 'True' | 'False'): Pod =>
    withConditions(gated, [
      { type: 'gate', status },
      { type: 'Ready', status: ready },
    ]);
  assert.equal(gateConditionsChanged(undefined, withGate('False', 'False')), true);
  assert.equal(
    gateConditionsChanged(gated, withGate('False', 'False')),
    true,
    'the condition appears',
  );
  assert.equal(gateConditionsChanged(withGate('False', 'False'), withGate('True', 'False')), true);
  assert.equal(
    gateConditionsChanged(withGate('True', 'False'), withGate('True', 'True')),
    false,
    'only the agent`s own Ready changed',
  );
  const ungated = pod('g7', { containers: [{ name: 'c' }] });
  assert.equal(
    gateConditionsChanged(undefined, withConditions(ungated, [{ type: 'x', status: 'True' }])),
    false,
  );
});
