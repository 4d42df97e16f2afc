// PolicyRule semantics with the reference's answers (rbac/v1 evaluation_helpers_test.go and
// policy_comparator_test.go cases, and the escalation message text of ConfirmNoEscalation).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  compactRules,
  compactString,
  ruleAllows,
  uncoveredRules,
  type PolicyRule,
} from '../../../../../src/apiserver/authz/rbac/rules.js';

const rule = (p: Partial<PolicyRule>): PolicyRule => ({
  verbs: [],
  apiGroups: [],
  resources: [],
  resourceNames: [],
  nonResourceURLs: [],
  ...p,
});
const res = (
  verb: string,
  resource: string,
  o: { group?: string; sub?: string; name?: string } = {},
) => ({
  verb,
  isResourceRequest: true,
  path: '',
  apiGroup: o.group ?? '',
  resource,
  subresource: o.sub ?? '',
  name: o.name ?? '',
});
const url = (verb: string, path: string) => ({
  verb,
  isResourceRequest: false,
  path,
  apiGroup: '',
  resource: '',
  subresource: '',
  name: '',
});

test('resource rules: verbs, groups, resources, subresources and names as the reference matches them', () => {
  const podsRead = rule({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] });
  assert.equal(ruleAllows(res('get', 'pods'), podsRead), true);
  assert.equal(ruleAllows(res('delete', 'pods'), podsRead), false);
  assert.equal(ruleAllows(res('get', 'pods', { group: 'apps' }), podsRead), false);
  // A rule on pods does not reach pods/status; `pods/status` and `*/status` do.
  assert.equal(ruleAllows(res('get', 'pods', { sub: 'status' }), podsRead), false);
  assert.equal(
    ruleAllows(
      res('update', 'pods', { sub: 'status' }),
      rule({ verbs: ['update'], apiGroups: [''], resources: ['pods/status'] }),
    ),
    true,
  );
  assert.equal(
    ruleAllows(
      res('update', 'nodes', { sub: 'status' }),
      rule({ verbs: ['update'], apiGroups: [''], resources: ['*/status'] }),
    ),
    true,
  );
  assert.equal(
    ruleAllows(
      res('update', 'nodes'),
      rule({ verbs: ['update'], apiGroups: [''], resources: ['*/status'] }),
    ),
    false,
  );
  const star = rule({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
  assert.equal(
    ruleAllows(
      res('escalate', 'clusterroles', { group: 'rbac.authorization.k8s.io', name: 'x' }),
      star,
    ),
    true,
  );
  assert.equal(ruleAllows(res('get', 'pods', { sub: 'log' }), star), true);
  const named = rule({
    verbs: ['get'],
    apiGroups: [''],
    resources: ['configmaps'],
    resourceNames: ['cluster-info'],
  });
  assert.equal(ruleAllows(res('get', 'configmaps', { name: 'cluster-info' }), named), true);
  assert.equal(ruleAllows(res('get', 'configmaps', { name: 'other' }), named), false);
  // A list has no name, so a rule with resourceNames never allows it (nor a create).
  assert.equal(ruleAllows(res('list', 'configmaps'), named), false);
});

test('non-resource URLs: exact, `*`, and a trailing `*` as a prefix', () => {
  const discovery = rule({ verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/healthz'] });
  assert.equal(ruleAllows(url('get', '/api'), discovery), true);
  assert.equal(ruleAllows(url('get', '/api/v1'), discovery), true);
  assert.equal(ruleAllows(url('get', '/apis'), discovery), false);
  assert.equal(ruleAllows(url('post', '/api'), discovery), false);
  assert.equal(ruleAllows(url('get', '/healthz/etcd'), discovery), false);
  assert.equal(
    ruleAllows(url('get', '/anything'), rule({ verbs: ['*'], nonResourceURLs: ['*'] })),
    true,
  );
  // A resource rule never allows a path, and a URL rule never a resource.
  assert.equal(
    ruleAllows(url('get', '/api'), rule({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] })),
    false,
  );
  assert.equal(
    ruleAllows(res('get', 'pods'), rule({ verbs: ['*'], nonResourceURLs: ['*'] })),
    false,
  );
});

test('covers: the escalation check breaks rules down and compares them as the reference', () => {
  const owner = [
    rule({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', '*/status'] }),
    rule({ verbs: ['get'], nonResourceURLs: ['/logs/*'] }),
  ];
  assert.deepEqual(
    uncoveredRules(owner, [
      rule({ verbs: ['get'], apiGroups: [''], resources: ['pods', 'nodes/status'] }),
    ]),
    [],
  );
  assert.deepEqual(
    uncoveredRules(owner, [rule({ verbs: ['get'], nonResourceURLs: ['/logs/x'] })]),
    [],
  );
  assert.deepEqual(
    uncoveredRules(owner, [
      rule({ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }),
    ]),
    [rule({ verbs: ['delete'], apiGroups: [''], resources: ['pods'] })],
  );
  // Names: an owner limited to names covers only those names; an unrestricted owner covers any.
  const namedOwner = [
    rule({ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }),
  ];
  assert.deepEqual(
    uncoveredRules(namedOwner, [
      rule({ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }),
    ]),
    [],
  );
  assert.equal(
    uncoveredRules(namedOwner, [rule({ verbs: ['get'], apiGroups: [''], resources: ['secrets'] })])
      .length,
    1,
  );
});

test('CompactString and CompactRules give the reference escalation text', () => {
  const missing = uncoveredRules(
    [],
    [
      rule({ verbs: ['get', 'list'], apiGroups: [''], resources: ['secrets'] }),
      rule({ verbs: ['get'], nonResourceURLs: ['/metrics'] }),
    ],
  );
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  assert.deepEqual(lines, [
    '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
    '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
  ]);
  assert.equal(
    compactString(
      rule({
        verbs: ['get'],
        apiGroups: [''],
        resources: ['configmaps'],
        resourceNames: ['cluster-info'],
      }),
    ),
    '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["cluster-info"], Verbs:["get"]}',
  );
});
