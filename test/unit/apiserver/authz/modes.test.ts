// --authorization-mode names to authorizers: the chain order, late-bound RBAC/Node, the Node
// placeholder (no opinion, said once), and the union rule resolver behind SelfSubjectRulesReview.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AuthorizerChain } from '../../../../src/apiserver/authz/chain.js';
import {
  alwaysAllow,
  alwaysDeny,
  authorizersForModes,
  LateModes,
} from '../../../../src/apiserver/authz/modes.js';
import type { RequestAttributes } from '../../../../src/apiserver/interfaces.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

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

test('modes become authorizers in order; RBAC and Node are late-bound and fail until bound', async () => {
  const late = new LateModes();
  const chain = authorizersForModes(['Node', 'RBAC', 'AlwaysDeny'], {
    late,
    webhook: () => alwaysAllow,
  });
  assert.equal(chain[0], late.node);
  assert.equal(chain[1], late.rbac);
  assert.equal(chain[2], alwaysDeny);
  await assert.rejects(() => late.rbac.authorize(attrs), /authorization mode RBAC is not ready/);
  assert.throws(
    () => authorizersForModes(['ABAC'], { late, webhook: () => alwaysAllow }),
    /unknown authorization mode ABAC/,
  );
});

test('without a Node authorizer, Node has no opinion and the start-up log says so once', async () => {
  const late = new LateModes();
  const logger = recordingLogger();
  late.bindDefaults(logger, ['Node', 'RBAC']);
  assert.deepEqual(await late.node.authorize(attrs), { decision: 'no-opinion' });
  assert.deepEqual(
    logger.lines
      .filter((l) => /authorization mode Node: no Node authorizer/.test(l.msg))
      .map((l) => l.level),
    ['warn'],
  );
  const plugged = new LateModes();
  plugged.node.bind(alwaysDeny);
  plugged.bindDefaults(logger, ['Node']);
  assert.deepEqual(await plugged.node.authorize(attrs), { decision: 'deny' });
});

test('the chain lists rules as the reference union resolver: AlwaysAllow gives */*, a non-resolver makes it incomplete', async () => {
  const late = new LateModes();
  late.bindDefaults(recordingLogger(), []);
  const r = await new AuthorizerChain({ authorizers: [late.node, alwaysAllow] }).rulesFor(
    attrs.user,
    'default',
  );
  assert.equal(r.incomplete, true);
  assert.equal(r.evaluationError, 'node authorizer does not support user rule resolution');
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
