// The scheduler's filters and its FitError message against the reference's (pkg/scheduler):
// reasons counted per node, sorted, then the preemption attempt's verdicts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  fitErrorMessage,
  matchesNodeAffinity,
  nodeFit,
  podRequests,
  tolerates,
} from '../../../../src/apiserver/controllers/scheduler/fit.js';
import { namesFor } from '../../../../src/common/names.js';

type Obj = Record<string, unknown>;
const names = namesFor('kubernetes');
const ready = [{ type: 'Ready', status: 'True' }];
const node = (name: string, extra: Obj = {}, labels: Obj = {}): Obj => ({
  metadata: { name, labels },
  spec: extra,
  status: { allocatable: { cpu: '2', memory: '4Gi', pods: '3' }, conditions: ready },
});
const pod = (requests: Obj = {}, spec: Obj = {}): Obj => ({
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'c', resources: { requests } }], ...spec },
});

test("the reference's message: 1 Insufficient cpu, 2 untolerated taints, then preemption", () => {
  const p = pod({ cpu: '1500m' });
  const tainted = node('t', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] });
  const fits = [
    nodeFit(p, node('a'), [pod({ cpu: '1' })], names),
    nodeFit(p, tainted, [], names),
    nodeFit(p, { ...tainted, metadata: { name: 't2' } }, [], names),
  ];
  assert.equal(
    fitErrorMessage(fits),
    '0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.',
  );
  assert.equal(fitErrorMessage([]), 'no nodes available to schedule pods');
});

test("filters in the reference's order: unschedulable, taints (not Ready as not-ready), affinity, resources", () => {
  const p = pod({ memory: '5Gi', cpu: '3' });
  assert.deepEqual(nodeFit(p, node('u', { unschedulable: true }), [], names).reasons, [
    'node(s) were unschedulable',
  ]);
  const notReady = {
    ...node('nr'),
    status: { allocatable: {}, conditions: [{ type: 'Ready', status: 'Unknown' }] },
  };
  assert.deepEqual(nodeFit(p, notReady, [], names).reasons, [
    'node(s) had untolerated taint {node.kubernetes.io/not-ready: }',
  ]);
  assert.deepEqual(
    nodeFit(pod({}, { nodeSelector: { disk: 'ssd' } }), node('a'), [], names).reasons,
    ["node(s) didn't match Pod's node affinity/selector"],
  );
  assert.deepEqual(nodeFit(p, node('a'), [pod(), pod(), pod()], names).reasons, [
    'Too many pods',
    'Insufficient cpu',
    'Insufficient memory',
  ]);
  const tolerant = pod(
    {},
    {
      tolerations: [
        { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
      ],
    },
  );
  assert.deepEqual(nodeFit(tolerant, node('u', { unschedulable: true }), [], names).reasons, []);
});

test("tolerations and required node affinity match as the reference's helpers", () => {
  const taint = { key: 'k', value: 'v', effect: 'NoExecute' };
  assert.equal(tolerates([{ key: 'k', value: 'v' }], taint), true);
  assert.equal(tolerates([{ key: 'k', value: 'w' }], taint), false);
  assert.equal(tolerates([{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }], taint), false);
  assert.equal(tolerates([{ operator: 'Exists' }], taint), true);
  assert.equal(tolerates([{ operator: 'Equal' }], taint), false);
  const affinity = (terms: unknown[]): Obj =>
    pod(
      {},
      {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms },
          },
        },
      },
    );
  const n = node('a', {}, { zone: 'z1', gen: '5' });
  assert.equal(
    matchesNodeAffinity(
      affinity([{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] }]),
      n,
    ),
    true,
  );
  assert.equal(
    matchesNodeAffinity(
      affinity([
        { matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['6'] }] },
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }] },
      ]),
      n,
    ),
    true,
  );
  assert.equal(
    matchesNodeAffinity(
      affinity([{ matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }]),
      n,
    ),
    false,
  );
  assert.equal(matchesNodeAffinity(affinity([{}]), n), false);
});

test('requests: limits stand in for requests, init containers count at their largest, sidecars add up', () => {
  const p: Obj = {
    spec: {
      containers: [
        { resources: { limits: { cpu: '500m' } } },
        { resources: { requests: { cpu: '250m' } } },
      ],
      initContainers: [
        { resources: { requests: { cpu: '2' } } },
        { restartPolicy: 'Always', resources: { requests: { memory: '1Mi' } } },
      ],
    },
  };
  assert.equal(podRequests(p).get('cpu'), 2);
  assert.equal(podRequests(p).get('memory'), 1024 * 1024);
});
