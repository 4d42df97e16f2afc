import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admitPod, podCapacity } from '../../../../src/agent/worker/admission.js';

test('pod capacity: max pods, capped by pods per core × CPUs when set', () => {
  assert.equal(podCapacity({ maxPods: 110, podsPerCore: 0, cpuCount: 2 }), 110);
  assert.equal(podCapacity({ maxPods: 110, podsPerCore: 10, cpuCount: 2 }), 20);
  assert.equal(podCapacity({ maxPods: 5, podsPerCore: 10, cpuCount: 2 }), 5);
  assert.ok(
    podCapacity({ maxPods: 1000, podsPerCore: 1 }) >= 1,
    'uses the host CPU count by default',
  );
});

test('admission: the pod over capacity is rejected with OutOfpods', () => {
  assert.deepEqual(admitPod(1, 2), { admit: true });
  assert.deepEqual(admitPod(2, 2), {
    admit: false,
    reason: 'OutOfpods',
    message: "Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2",
  });
});
