// The parts of a DELETE that look only at the object and the options: the reference's
// precondition answers (409 Conflict, its message words), the store-read-error option refused
// for a readable object (422), the grace period, and the deletion mark.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkDeletable,
  deleteGraceSeconds,
  deletesGracefully,
  markedForDeletion,
  type DeleteStepOptions,
} from '../../../../src/apiserver/registry/delete-steps.js';
import { podDef } from '../../../../src/apiserver/registry/resources/pod.js';
import { eventDef } from '../../../../src/apiserver/registry/resources/event.js';
import { StatusError } from '../../../../src/apiserver/status.js';

const opts = (o: Partial<DeleteStepOptions> = {}): DeleteStepOptions => ({
  gracePeriodSeconds: undefined,
  preconditions: undefined,
  ignoreStoreReadError: false,
  ...o,
});
const pod = (
  spec: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
): Record<string, unknown> => ({
  metadata: { name: 'p', uid: 'u1', resourceVersion: '5', ...metadata },
  spec,
});

function statusOf(fn: () => void): { code: number; reason: string; message: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError);
    const s = err.toStatus();
    return { code: s.code, reason: s.reason ?? '', message: s.message ?? '' };
  }
  assert.fail('expected a StatusError');
}

test("preconditions that do not hold are the reference's 409 Conflict with its message", () => {
  assert.deepEqual(
    statusOf(() =>
      checkDeletable(podDef, 'p', pod({}), opts({ preconditions: { uid: 'other' } }), 'k8s.io'),
    ),
    {
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on pods "p": Precondition failed: UID in precondition: other, UID in object meta: u1',
    },
  );
  assert.deepEqual(
    statusOf(() =>
      checkDeletable(
        podDef,
        'p',
        pod({}),
        opts({ preconditions: { resourceVersion: '4' } }),
        'k8s.io',
      ),
    ),
    {
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on pods "p": Precondition failed: ResourceVersion in precondition: 4, ResourceVersion in object meta: 5',
    },
  );
  checkDeletable(
    podDef,
    'p',
    pod({}),
    opts({ preconditions: { uid: 'u1', resourceVersion: '5' } }),
    'k8s.io',
  );
});

test('ignoreStoreReadErrorWithClusterBreakingPotential on a readable object is 422 Invalid, as the reference', () => {
  const s = statusOf(() =>
    checkDeletable(podDef, 'p', pod({}), opts({ ignoreStoreReadError: true }), 'k8s.io'),
  );
  assert.equal(s.code, 422);
  assert.equal(s.reason, 'Invalid');
  assert.match(
    s.message,
    /ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object\(s\), try again by removing this option/,
  );
});

test("grace: none for kinds without one; a bound pod its own or the request's; an unbound pod 0 whatever is asked", () => {
  assert.equal(
    deleteGraceSeconds(eventDef, { metadata: { name: 'e' } }, opts({ gracePeriodSeconds: 30 })),
    0,
  );
  const bound = pod({ nodeName: 'n1', terminationGracePeriodSeconds: 45 });
  assert.equal(deleteGraceSeconds(podDef, bound, opts()), 45);
  assert.equal(deleteGraceSeconds(podDef, bound, opts({ gracePeriodSeconds: 3 })), 3);
  assert.equal(deleteGraceSeconds(podDef, pod({}), opts({ gracePeriodSeconds: 3 })), 0);
  assert.equal(deletesGracefully(pod({}), 0), false);
  assert.equal(deletesGracefully(pod({}, { finalizers: ['x'] }), 0), true);
});

test('the deletion mark is now + grace, kept when an earlier mark is as soon or sooner', () => {
  const now = new Date('2026-01-01T00:00:00.500Z');
  const marked = markedForDeletion(pod({}), 30, now);
  assert.deepEqual(
    [
      (marked['metadata'] as Record<string, unknown>)['deletionTimestamp'],
      (marked['metadata'] as Record<string, unknown>)['deletionGracePeriodSeconds'],
    ],
    ['2026-01-01T00:00:30Z', 30],
  );
  const sooner = markedForDeletion(marked, 10, now);
  assert.equal((sooner['metadata'] as Record<string, unknown>)['deletionGracePeriodSeconds'], 10);
  const later = markedForDeletion(sooner, 20, now);
  assert.equal((later['metadata'] as Record<string, unknown>)['deletionGracePeriodSeconds'], 10);
});
