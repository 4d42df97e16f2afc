// The bootstrap policy data, its translation to our names, reconciliation (adds, never removes,
// respects autoupdate=false) and ClusterRole aggregation, with the reference's names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  aggregatedRules,
  selectorMatches,
} from '../../../../../src/apiserver/authz/rbac/aggregation.js';
import {
  bootstrapPolicy,
  reconcileBinding,
  reconcileRole,
} from '../../../../../src/apiserver/authz/rbac/bootstrap.js';
import { rbacNames } from '../../../../../src/apiserver/authz/rbac/names.js';
import { namesFor } from '../../../../../src/common/names.js';

type Obj = Record<string, unknown>;
const name = (o: Obj): string => String((o['metadata'] as Obj)['name']);

test('the bootstrap policy is the reference data: 65 ClusterRoles, 49 ClusterRoleBindings, 8 Roles, 8 RoleBindings', () => {
  const p = bootstrapPolicy(rbacNames(namesFor('platform', 'k8s.io')));
  const count = (k: string): number => p.filter((o) => o['kind'] === k).length;
  assert.deepEqual(
    [count('ClusterRole'), count('ClusterRoleBinding'), count('Role'), count('RoleBinding')],
    [65, 49, 8, 8],
  );
  const roles = p.filter((o) => o['kind'] === 'ClusterRole').map(name);
  for (const r of [
    'cluster-admin',
    'admin',
    'edit',
    'view',
    'system:basic-user',
    'system:discovery',
    'system:public-info-viewer',
    'system:node',
    'system:node-bootstrapper',
  ])
    assert.ok(roles.includes(r), r);
  assert.ok(roles.includes('system:certificates.k8s.io:certificatesigningrequests:nodeclient'));
  const crb = p.find((o) => name(o) === 'kubeadm:node-autoapprove-bootstrap');
  assert.deepEqual(crb?.['roleRef'], {
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'ClusterRole',
    name: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
  });
});

test('under another domain the groups, labels and signers are translated', () => {
  const n = rbacNames(namesFor('platform', 'platform.io'));
  assert.equal(n.group, 'rbac.authorization.platform.io');
  assert.equal(
    n.translate('rbac.authorization.k8s.io/aggregate-to-view'),
    'rbac.authorization.platform.io/aggregate-to-view',
  );
  assert.equal(
    n.translate('rbac.authorization.kubernetes.io/autoupdate'),
    'rbac.authorization.platform.io/autoupdate',
  );
  assert.equal(
    n.translate('kubernetes.io/kube-apiserver-client-kubelet'),
    'platform.io/plat-apiserver-client-platlet',
  );
  assert.equal(
    n.translate('system:certificates.k8s.io:certificatesigningrequests:nodeclient'),
    'system:certificates.platform.io:certificatesigningrequests:nodeclient',
  );
  assert.equal(n.translate('apps'), 'apps');
  assert.equal(n.translate('/healthz'), '/healthz');
  const p = bootstrapPolicy(n);
  assert.equal(JSON.stringify(p).includes('k8s.io'), false);
  assert.equal(JSON.stringify(p).includes('kubernetes.io'), false);
});

test('reconcile: missing rules, labels and subjects are added; nothing is removed; a changed roleRef is recreated', () => {
  const expected = {
    metadata: { name: 'r', labels: { a: '1' } },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
  };
  const user = {
    metadata: { name: 'r', labels: { a: 'mine' } },
    rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }],
  };
  const next = reconcileRole(user, expected);
  assert.deepEqual(next?.['rules'], [
    { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
    { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
  ]);
  assert.deepEqual((next?.['metadata'] as Obj)['labels'], { a: 'mine' });
  assert.equal(reconcileRole(next ?? {}, expected), undefined);
  const b = {
    metadata: { name: 'b' },
    roleRef: { kind: 'ClusterRole', name: 'x' },
    subjects: [{ kind: 'Group', name: 'g1' }],
  };
  assert.deepEqual(
    reconcileBinding({ ...b, subjects: [{ kind: 'User', name: 'u' }] }, b)?.valueOf(),
    {
      ...b,
      subjects: [
        { kind: 'User', name: 'u' },
        { kind: 'Group', name: 'g1' },
      ],
    },
  );
  assert.equal(
    reconcileBinding({ ...b, roleRef: { kind: 'ClusterRole', name: 'y' } }, b),
    'recreate',
  );
});

test('aggregation: label selectors pick ClusterRoles; rules deduplicated in name order', () => {
  assert.equal(selectorMatches({ matchLabels: { x: 'true' } }, { x: 'true', y: '1' }), true);
  assert.equal(selectorMatches({ matchLabels: { x: 'true' } }, { x: 'false' }), false);
  assert.equal(
    selectorMatches(
      { matchExpressions: [{ key: 'x', operator: 'In', values: ['a', 'b'] }] },
      { x: 'b' },
    ),
    true,
  );
  assert.equal(
    selectorMatches({ matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, { x: 'b' }),
    false,
  );
  assert.equal(selectorMatches({}, { x: 'b' }), false);
  const view = {
    metadata: { name: 'view' },
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'agg-view': 'true' } }] },
  };
  const a = {
    metadata: { name: 'a', labels: { 'agg-view': 'true' } },
    rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
  };
  const b = {
    metadata: { name: 'b', labels: { 'agg-view': 'true' } },
    rules: [
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['list'], apiGroups: [''], resources: ['events'] },
    ],
  };
  const c = {
    metadata: { name: 'c' },
    rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  };
  assert.deepEqual(aggregatedRules(view, [a, b, c, view]), [
    { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
    { verbs: ['list'], apiGroups: [''], resources: ['events'] },
  ]);
});
