// RBAC end to end against the built plat-apiserver (--platform-domain=k8s.io, default
// --authorization-mode=Node,RBAC), with the reference's answers: the escalation 403 text, a
// binding to a missing role (allowed, grants nothing, named in the 403 reason), 422 for empty
// rules, the bootstrap policy reconciled at start without clobbering autoupdate=false, ClusterRole
// aggregation, and impersonation authorized by the `impersonate` verb.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';

const G = 'rbac.authorization.k8s.io';
const RBAC = `/apis/${G}/v1`;
let api: StartedApiServer;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pa-rbac-'));
  writeFileSync(join(dir, 'tokens.csv'), 'tok-alice,alice,u-alice,\ntok-bob,bob,u-bob,"team-b"\n');
  // certificates under the test's directory: a restart below keeps them, and `after` removes them
  mkdirSync(join(dir, 'certs'));
  api = await startApiServer({
    platformDomain: 'k8s.io',
    dataDir: join(dir, 'data'),
    certDir: join(dir, 'certs'),
    args: [`--token-auth-file=${join(dir, 'tokens.csv')}`],
  });
});
after(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const role = (name: string, rules: unknown[]) => ({
  apiVersion: `${G}/v1`,
  kind: 'Role',
  metadata: { name },
  rules,
});
const binding = (
  kind: 'RoleBinding' | 'ClusterRoleBinding',
  name: string,
  roleKind: string,
  roleName: string,
  user: string,
) => ({
  apiVersion: `${G}/v1`,
  kind,
  metadata: { name },
  roleRef: { apiGroup: G, kind: roleKind, name: roleName },
  subjects: [{ kind: 'User', apiGroup: G, name: user }],
});

async function created(path: string, body: unknown): Promise<void> {
  const r = await api.request('POST', path, { body });
  assert.equal(r.status, 201, r.text);
}

test('escalation: a role with rules the user does not hold is 403 naming them; escalate lifts it', async () => {
  await created(
    `${RBAC}/namespaces/default/roles`,
    role('role-writer', [
      { apiGroups: [G], resources: ['roles'], verbs: ['create'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
    ]),
  );
  await created(
    `${RBAC}/namespaces/default/rolebindings`,
    binding('RoleBinding', 'alice-role-writer', 'Role', 'role-writer', 'alice'),
  );
  const held = await api.request('POST', `${RBAC}/namespaces/default/roles`, {
    token: 'tok-alice',
    body: role('pod-reader', [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]),
  });
  assert.equal(held.status, 201, held.text);
  const r = await api.request('POST', `${RBAC}/namespaces/default/roles`, {
    token: 'tok-alice',
    body: role('pod-admin', [
      { apiGroups: [''], resources: ['pods', 'secrets'], verbs: ['get', 'delete'] },
    ]),
  });
  assert.equal(r.status, 403);
  assert.equal(r.json?.['reason'], 'Forbidden');
  assert.equal(
    r.json?.['message'],
    'roles.rbac.authorization.k8s.io "pod-admin" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
      '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n' +
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
  );
  await created(
    `${RBAC}/namespaces/default/roles`,
    role('escalator', [{ apiGroups: [G], resources: ['roles'], verbs: ['escalate'] }]),
  );
  await created(
    `${RBAC}/namespaces/default/rolebindings`,
    binding('RoleBinding', 'alice-escalator', 'Role', 'escalator', 'alice'),
  );
  const lifted = await api.request('POST', `${RBAC}/namespaces/default/roles`, {
    token: 'tok-alice',
    body: role('pod-admin', [{ apiGroups: [''], resources: ['pods'], verbs: ['delete'] }]),
  });
  assert.equal(lifted.status, 201, lifted.text);
});

test('binding: a role the user does not hold is 403 unless they may bind it; a missing role is 404 for them', async () => {
  await created(
    `${RBAC}/namespaces/default/roles`,
    role('binder', [{ apiGroups: [G], resources: ['rolebindings'], verbs: ['create'] }]),
  );
  await created(
    `${RBAC}/namespaces/default/rolebindings`,
    binding('RoleBinding', 'bob-binder', 'Role', 'binder', 'bob'),
  );
  const r = await api.request('POST', `${RBAC}/namespaces/default/rolebindings`, {
    token: 'tok-bob',
    body: binding('RoleBinding', 'bob-edit', 'ClusterRole', 'edit', 'bob'),
  });
  assert.equal(r.status, 403);
  assert.match(
    String(r.json?.['message']),
    /^rolebindings\.rbac\.authorization\.k8s\.io "bob-edit" is forbidden: user "bob" \(groups=\["team-b" "system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["[a-z]+"\], Verbs:\["[a-z]+"/,
  );
  assert.match(
    String(r.json?.['message']),
    /\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\[[^\]]*"delete"/,
  );
  const missing = await api.request('POST', `${RBAC}/namespaces/default/rolebindings`, {
    token: 'tok-bob',
    body: binding('RoleBinding', 'bob-missing', 'ClusterRole', 'no-such-role', 'bob'),
  });
  assert.equal(missing.status, 404);
  assert.equal(
    missing.json?.['message'],
    'clusterrole.rbac.authorization.k8s.io "no-such-role" not found',
  );
  await created(
    `${RBAC}/namespaces/default/roles`,
    role('edit-binder', [
      { apiGroups: [G], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['edit'] },
    ]),
  );
  await created(
    `${RBAC}/namespaces/default/rolebindings`,
    binding('RoleBinding', 'bob-edit-binder', 'Role', 'edit-binder', 'bob'),
  );
  const ok = await api.request('POST', `${RBAC}/namespaces/default/rolebindings`, {
    token: 'tok-bob',
    body: binding('RoleBinding', 'bob-edit', 'ClusterRole', 'edit', 'bob'),
  });
  assert.equal(ok.status, 201, ok.text);
});

test('a binding to a missing role is allowed and grants nothing; the 403 names the missing role', async () => {
  await created(
    `${RBAC}/clusterrolebindings`,
    binding('ClusterRoleBinding', 'alice-ghost', 'ClusterRole', 'ghost', 'alice'),
  );
  const r = await api.request('GET', '/api/v1/nodes', { token: 'tok-alice' });
  assert.equal(r.status, 403);
  assert.equal(
    r.json?.['message'],
    'nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope: RBAC: clusterrole.rbac.authorization.k8s.io "ghost" not found',
  );
  await created(`${RBAC}/clusterroles`, {
    metadata: { name: 'ghost' },
    rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['list'] }],
  });
  assert.equal((await api.request('GET', '/api/v1/nodes', { token: 'tok-alice' })).status, 200);
});

test('422 for a rule without verbs and one with neither resources nor nonResourceURLs; an unknown verb is accepted as the reference does', async () => {
  const noVerbs = await api.request('POST', `${RBAC}/clusterroles`, {
    body: { metadata: { name: 'bad1' }, rules: [{ apiGroups: [''], resources: ['pods'] }] },
  });
  assert.equal(noVerbs.status, 422);
  assert.equal(
    noVerbs.json?.['message'],
    'ClusterRole.rbac.authorization.k8s.io "bad1" is invalid: rules[0].verbs: Required value: verbs must contain at least one value',
  );
  const empty = await api.request('POST', `${RBAC}/clusterroles`, {
    body: { metadata: { name: 'bad2' }, rules: [{ verbs: ['get'] }] },
  });
  assert.equal(empty.status, 422);
  assert.equal(
    empty.json?.['message'],
    'ClusterRole.rbac.authorization.k8s.io "bad2" is invalid: [rules[0].apiGroups: Required value: resource rules must supply at least one api group, rules[0].resources: Required value: resource rules must supply at least one resource]',
  );
  const odd = await api.request('POST', `${RBAC}/clusterroles`, {
    body: {
      metadata: { name: 'odd-verb' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['frobnicate'] }],
    },
  });
  assert.equal(odd.status, 201, odd.text);
});

test('aggregation: a ClusterRole labelled aggregate-to-view lands in view', async () => {
  await created(`${RBAC}/clusterroles`, {
    metadata: {
      name: 'widgets-view',
      labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
    },
    rules: [
      { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] },
    ],
  });
  const deadline = Date.now() + 10_000;
  let rules: unknown[] = [];
  for (;;) {
    rules =
      ((await api.request('GET', `${RBAC}/clusterroles/view`)).json?.['rules'] as unknown[]) ?? [];
    if (JSON.stringify(rules).includes('widgets') || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(
    rules.some(
      (r) =>
        JSON.stringify(r) ===
        JSON.stringify({
          verbs: ['get', 'list', 'watch'],
          apiGroups: ['example.com'],
          resources: ['widgets'],
        }),
    ),
    JSON.stringify(rules),
  );
  // view aggregates into edit, edit into admin: one controller pass each, after view's, so the
  // test waits for admin too (the reference's controller is eventually consistent the same way).
  let admin: unknown;
  for (;;) {
    admin = (await api.request('GET', `${RBAC}/clusterroles/admin`)).json?.['rules'];
    if (JSON.stringify(admin).includes('widgets') || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(JSON.stringify(admin).includes('widgets'), 'admin aggregates view through edit');
});

test('impersonation: the impersonate verb on users, groups and uids; 403 without it', async () => {
  const who = async (headers: Record<string, string>, token?: string) =>
    api.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      headers,
      ...(token !== undefined ? { token } : {}),
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
  const asBob = await who({
    'Impersonate-User': 'bob',
    'Impersonate-Group': 'devs',
    'Impersonate-Uid': 'u-9',
    'Impersonate-Extra-Scopes': 'read',
  });
  assert.equal(asBob.status, 201, asBob.text);
  assert.deepEqual((asBob.json?.['status'] as Record<string, unknown>)['userInfo'], {
    username: 'bob',
    uid: 'u-9',
    groups: ['devs', 'system:authenticated'],
    extra: { scopes: ['read'] },
  });
  const denied = await who({ 'Impersonate-User': 'bob' }, 'tok-alice');
  assert.equal(denied.status, 403);
  assert.equal(
    denied.json?.['message'],
    'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
  );
  await created(`${RBAC}/clusterroles`, {
    metadata: { name: 'impersonate-bob' },
    rules: [
      { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['bob'] },
    ],
  });
  await created(
    `${RBAC}/clusterrolebindings`,
    binding(
      'ClusterRoleBinding',
      'alice-impersonates-bob',
      'ClusterRole',
      'impersonate-bob',
      'alice',
    ),
  );
  const ok = await who({ 'Impersonate-User': 'bob' }, 'tok-alice');
  assert.equal(ok.status, 201, ok.text);
  assert.deepEqual((ok.json?.['status'] as Record<string, unknown>)['userInfo'], {
    username: 'bob',
    groups: ['system:authenticated'],
  });
  const group = await who(
    { 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:masters' },
    'tok-alice',
  );
  assert.equal(group.status, 403);
  assert.equal(
    group.json?.['message'],
    'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
  );
  const noUser = await who({ 'Impersonate-Group': 'devs' });
  assert.equal(noUser.status, 400);
});

test('the bootstrap policy is reconciled at start: lost rules come back, autoupdate=false is respected', async () => {
  const get = async (name: string) =>
    (await api.request('GET', `${RBAC}/clusterroles/${name}`)).json ?? {};
  const strip = async (name: string, annotations: Record<string, string>) => {
    const cur = await get(name);
    const r = await api.request('PUT', `${RBAC}/clusterroles/${name}`, {
      body: { ...cur, metadata: { ...(cur['metadata'] as object), annotations }, rules: [] },
    });
    assert.equal(r.status, 200, r.text);
  };
  await strip('system:discovery', { 'rbac.authorization.k8s.io/autoupdate': 'true' });
  await strip('system:basic-user', { 'rbac.authorization.k8s.io/autoupdate': 'false' });
  await api.stop();
  api = await startApiServer({
    platformDomain: 'k8s.io',
    dataDir: join(dir, 'data'),
    certDir: api.certDir,
    args: [`--token-auth-file=${join(dir, 'tokens.csv')}`],
  });
  assert.deepEqual((await get('system:discovery'))['rules'], [
    { verbs: ['get'], nonResourceURLs: ['/api'] },
    { verbs: ['get'], nonResourceURLs: ['/api/*'] },
    { verbs: ['get'], nonResourceURLs: ['/apis'] },
    { verbs: ['get'], nonResourceURLs: ['/apis/*'] },
    { verbs: ['get'], nonResourceURLs: ['/healthz'] },
    { verbs: ['get'], nonResourceURLs: ['/livez'] },
    { verbs: ['get'], nonResourceURLs: ['/openapi'] },
    { verbs: ['get'], nonResourceURLs: ['/openapi/*'] },
    { verbs: ['get'], nonResourceURLs: ['/readyz'] },
    { verbs: ['get'], nonResourceURLs: ['/version'] },
    { verbs: ['get'], nonResourceURLs: ['/version/'] },
  ]);
  assert.deepEqual((await get('system:basic-user'))['rules'], []);
  assert.match(
    api.logs(),
    /ClusterRole system:basic-user is annotated rbac\.authorization\.k8s\.io\/autoupdate=false; left as it is/,
  );
});
