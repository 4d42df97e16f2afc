// The SubjectAccessReview request body both programs send (the agent to its API server,
// plat-apiserver to its authorization webhook): the envelope of the reference's authorization
// API, and v1beta1's name for the groups field (k8s.io/api/authorization/v1beta1
// SubjectAccessReviewSpec: `Groups []string json:"group,omitempty"`).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sarRequestBody, sarSpecV1 } from '../../../../src/common/auth/subject-access-review.js';

const spec = sarSpecV1({
  user: { username: 'alice', groups: ['dev'], uid: 'u1', extra: { scopes: ['a'] } },
  verb: 'get',
  path: '/api/v1/namespaces/ns/pods/p',
  namespace: 'ns',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  name: 'p',
});

test('a v1 SubjectAccessReview body: apiVersion {group}/v1, kind SubjectAccessReview, the spec as it is', () => {
  assert.deepEqual(sarRequestBody(spec, 'authorization.k8s.io'), {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: 'alice',
      groups: ['dev'],
      extra: { scopes: ['a'] },
      uid: 'u1',
      resourceAttributes: {
        namespace: 'ns',
        verb: 'get',
        group: '',
        version: 'v1',
        resource: 'pods',
        subresource: '',
        name: 'p',
      },
    },
  });
});

test('a v1beta1 SubjectAccessReview body names the groups field "group"', () => {
  const body = sarRequestBody(spec, 'authorization.platform.io', 'v1beta1');
  assert.equal(body.apiVersion, 'authorization.platform.io/v1beta1');
  assert.equal(body.kind, 'SubjectAccessReview');
  assert.deepEqual(body.spec, {
    user: 'alice',
    group: ['dev'],
    extra: { scopes: ['a'] },
    uid: 'u1',
    resourceAttributes: spec.resourceAttributes,
  });
});
