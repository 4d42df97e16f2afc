// --authorization-mode names to authorizers: the chain order, RBAC and Node as built over the
// store, and the union rule resolver behind SelfSubjectRulesReview.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AuthorizerChain } from '../../../../src/apiserver/authz/chain.js';
import {
  alwaysAllow,
  alwaysDeny,
  authorizersForModes,
} from '../../../../src/apiserver/authz/modes.js';
import type { RequestAttributes } from '../../../../src/apiserver/interfaces.js';

const attrs: RequestAttributes = {
  user: { username: 'u', groups: [] },
  verb: 'get',
  isResourceRequest: true,
  path: '',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  namespace: 'default',
  name: '',
};

test('modes become authorizers in order: RBAC and Node are the ones built over the store', () => {
  const rbac = { authorize: () => Promise.resolve({ decision: 'allow' as const }) };
  const node = { authorize: () => Promise.resolve({ decision: 'no-opinion' as const }) };
  const chain = authorizersForModes(['Node', 'RBAC', 'AlwaysDeny'], {
    rbac,
    node,
    webhook: () => alwaysAllow,
  });
  assert.equal(chain[0], node);
  assert.equal(chain[1], rbac);
  assert.equal(chain[2], alwaysDeny);
  assert.throws(
    () => authorizersForModes(['ABAC'], { rbac, node, webhook: () => alwaysAllow }),
    /unknown authorization mode ABAC/,
  );
});

test('the chain lists rules as the reference union resolver: AlwaysAllow gives */*, a non-resolver makes it incomplete', async () => {
  // An authorizer that cannot list rules (a webhook's) makes the union incomplete.
  const webhook = { authorize: () => Promise.resolve({ decision: 'no-opinion' as const }) };
  const r = await new AuthorizerChain({ authorizers: [webhook, alwaysAllow] }).rulesFor(
    attrs.user,
    'default',
  );
  assert.equal(r.incomplete, true);
  assert.equal(r.evaluationError, 'webhook authorizer does not support user rule resolution');
  assert.deepEqual(
    r.resourceRules.map((x) => [x.verbs, x.apiGroups, x.resources]),
    [[['*'], ['*'], ['*']]],
  );
  assert.deepEqual(
    r.nonResourceRules.map((x) => [x.verbs, x.nonResourceURLs]),
    [[['*'], ['*']]],
  );
  const deny = await new AuthorizerChain({ authorizers: [alwaysDeny] }).rulesFor(attrs.user, '');
  assert.deepEqual(deny, { resourceRules: [], nonResourceRules: [], incomplete: false });
});
