// DefaultTolerationSeconds, as the reference's plugin: pods created or updated without a
// toleration of the not-ready or unreachable NoExecute taint get one for 300 s; a toleration with
// no key or no effect already covers it; subresources and other resources are left alone; the
// platform profile's taint keys stand for the reference's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DefaultTolerationSeconds } from '../../../../src/apiserver/admission/default-toleration-seconds.js';
import type { AdmissionRequest } from '../../../../src/apiserver/interfaces.js';
import { namesFor } from '../../../../src/common/names.js';

type Obj = Record<string, unknown>;
const plugin = new DefaultTolerationSeconds(namesFor('kubernetes'));

function pod(spec: Obj, over: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    operation: 'CREATE',
    resource: 'pods',
    apiGroup: '',
    subresource: '',
    namespace: 'ns',
    name: 'p',
    object: { metadata: { name: 'p' }, spec },
    oldObject: undefined,
    user: { username: 'u', groups: [] },
    dryRun: false,
    ...over,
  };
}

const added = (key: string): Obj => ({
  key,
  operator: 'Exists',
  effect: 'NoExecute',
  tolerationSeconds: 300,
});
const tolerationsOf = (r: AdmissionRequest): unknown => (r.object?.['spec'] as Obj)['tolerations'];

test('a pod without them gets both tolerations, on create and on update', async () => {
  for (const operation of ['CREATE', 'UPDATE'] as const) {
    const r = pod({}, { operation });
    await plugin.admit(r);
    assert.deepEqual(tolerationsOf(r), [
      added('node.kubernetes.io/not-ready'),
      added('node.kubernetes.io/unreachable'),
    ]);
  }
});

test('a toleration with no key, or the key with no effect, already tolerates', async () => {
  const wildcard = { operator: 'Exists' };
  const r1 = pod({ tolerations: [wildcard] });
  await plugin.admit(r1);
  assert.deepEqual(tolerationsOf(r1), [wildcard]);
  const own = { key: 'node.kubernetes.io/unreachable', operator: 'Exists' };
  const r2 = pod({ tolerations: [own] });
  await plugin.admit(r2);
  assert.deepEqual(tolerationsOf(r2), [own, added('node.kubernetes.io/not-ready')]);
  // A NoSchedule toleration of the taint does not count.
  const noSchedule = {
    key: 'node.kubernetes.io/not-ready',
    operator: 'Exists',
    effect: 'NoSchedule',
  };
  const r3 = pod({ tolerations: [noSchedule] });
  await plugin.admit(r3);
  assert.equal((tolerationsOf(r3) as unknown[]).length, 3);
});

test('subresources, other resources, deletes and a tolerations value that is not a list are left alone', async () => {
  for (const over of [
    { subresource: 'status' },
    { resource: 'configmaps' },
    { operation: 'DELETE' as const },
  ]) {
    const r = pod({}, over);
    await plugin.admit(r);
    assert.equal(tolerationsOf(r), undefined, JSON.stringify(over));
  }
  const r = pod({ tolerations: 'all' });
  await plugin.admit(r);
  assert.equal(tolerationsOf(r), 'all');
});

test("under the platform profile the taint keys are the profile's", async () => {
  const r = pod({});
  await new DefaultTolerationSeconds(namesFor('platform', 'platform.io')).admit(r);
  assert.deepEqual(tolerationsOf(r), [
    added('node.platform.io/not-ready'),
    added('node.platform.io/unreachable'),
  ]);
});
