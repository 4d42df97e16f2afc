// The authorization matrix under the default --authorization-mode=Node,RBAC and the bootstrap
// policy: identities (admin in system:masters, a user bound to `view`, a bootstrap token user in
// system:bootstrappers, a plain authenticated user, anonymous) × every verb on every resource and
// subresource served, the reviews and some non-resource paths. The expected answers are written
// out below from the reference's documented default roles (kubernetes.io "Using RBAC
// Authorization": default roles and role bindings), not derived from this server's code:
//   cluster-admin → system:masters: everything;
//   view: get/list/watch of most namespaced objects (pods, pods/status, events, namespaces,
//     namespaces/status), no nodes, no CSRs, no roles or bindings;
//   system:node-bootstrapper + ...:nodeclient → kubeadm binds them to system:bootstrappers:
//     create/get/list/watch certificatesigningrequests;
//   system:basic-user → system:authenticated: create self{subjectaccess,subjectrules,subject}reviews;
//   system:discovery → system:authenticated: GET /api, /api/*, /apis, /apis/*, /openapi, /openapi/*,
//     /healthz, /livez, /readyz, /version, /version/;
//   system:public-info-viewer → everyone: GET /healthz, /livez, /readyz, /version, /version/.
// Writes are sent with dryRun=All so every identity sees the same objects. The figure printed at
// the end is the matrix size and how many cells match.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { csrBody, makeCsrPem } from '../../helpers/apiserver-fixtures.js';

const G = 'rbac.authorization.k8s.io';
type Identity = 'admin' | 'viewer' | 'bootstrap' | 'plain' | 'anonymous';
const IDENTITIES: readonly Identity[] = ['admin', 'viewer', 'bootstrap', 'plain', 'anonymous'];
const TOKENS: Record<string, string> = { viewer: 'tok-viewer', bootstrap: 'abcdef.0123456789abcdef', plain: 'tok-plain' };

interface Action {
  /** `verb resource[/sub]` or `GET <path>`: the key the expectations are written against. */
  readonly key: string;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly contentType?: string;
}

const readVerbs = ['get', 'list', 'watch'];
const PUBLIC = ['/healthz', '/livez', '/readyz', '/version'];
const DISCOVERY = [...PUBLIC, '/api', '/api/v1', '/apis', `/apis/${G}/v1`, '/openapi/v3'];
const SELF_REVIEWS = ['create selfsubjectaccessreviews', 'create selfsubjectrulesreviews', 'create selfsubjectreviews'];

/** The reference's answer: true when the identity may do it. */
function expected(who: Identity, key: string): boolean {
  const [verb = '', what = ''] = key.split(' ');
  if (who === 'admin') return true;
  if (verb === 'GET') return who === 'anonymous' ? PUBLIC.includes(what) : DISCOVERY.includes(what);
  if (who === 'anonymous') return false;
  if (SELF_REVIEWS.includes(key)) return true;
  if (who === 'viewer') return (readVerbs.includes(verb) && ['pods', 'events', 'namespaces'].includes(what)) || (verb === 'get' && ['pods/status', 'namespaces/status'].includes(what));
  if (who === 'bootstrap') return ['create', ...readVerbs].includes(verb) && what === 'certificatesigningrequests';
  return false;
}

interface ResourceSpec {
  readonly resource: string;
  readonly collection: string;
  readonly name: string;
  readonly fresh: (name: string) => unknown;
  readonly subresources: readonly string[];
  readonly deleteCollection: boolean;
}

let api: StartedApiServer;
let dir: string;
let csrPem = '';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pa-matrix-'));
  writeFileSync(join(dir, 'tokens.csv'), `tok-viewer,vera,u1,\ntok-plain,paul,u2,\n${TOKENS['bootstrap']},system:bootstrap:abcdef,u3,"system:bootstrappers"\n`);
  api = await startApiServer({ platformDomain: 'k8s.io', args: [`--token-auth-file=${join(dir, 'tokens.csv')}`, '--anonymous-auth=true'] });
  csrPem = (await makeCsrPem({ cn: 'matrix' })).csrPem;
});
after(async () => {
  await api?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function specs(): ResourceSpec[] {
  const ns = '/api/v1/namespaces/matrix';
  const rbac = `/apis/${G}/v1`;
  const rule = [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }];
  const ref = { apiGroup: G, kind: 'ClusterRole', name: 'view' };
  return [
    { resource: 'namespaces', collection: '/api/v1/namespaces', name: 'matrix', fresh: (n) => ({ metadata: { name: n } }), subresources: ['status'], deleteCollection: false },
    { resource: 'events', collection: `${ns}/events`, name: 'e1', fresh: (n) => ({ metadata: { name: n }, involvedObject: { kind: 'Pod', name: 'p1', namespace: 'matrix' }, reason: 'R', message: 'm' }), subresources: [], deleteCollection: true },
    { resource: 'nodes', collection: '/api/v1/nodes', name: 'n1', fresh: (n) => ({ metadata: { name: n } }), subresources: ['status'], deleteCollection: true },
    { resource: 'pods', collection: `${ns}/pods`, name: 'p1', fresh: (n) => ({ metadata: { name: n }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } }), subresources: ['status'], deleteCollection: true },
    {
      resource: 'certificatesigningrequests',
      collection: '/apis/certificates.k8s.io/v1/certificatesigningrequests',
      name: 'c1',
      fresh: (n) => csrBody(n, csrPem, 'example.com/matrix', ['client auth'], {}, 'k8s.io'),
      subresources: ['status', 'approval'],
      deleteCollection: true,
    },
    { resource: 'roles', collection: `${rbac}/namespaces/matrix/roles`, name: 'r1', fresh: (n) => ({ metadata: { name: n }, rules: rule }), subresources: [], deleteCollection: true },
    { resource: 'clusterroles', collection: `${rbac}/clusterroles`, name: 'cr1', fresh: (n) => ({ metadata: { name: n }, rules: rule }), subresources: [], deleteCollection: true },
    { resource: 'rolebindings', collection: `${rbac}/namespaces/matrix/rolebindings`, name: 'rb1', fresh: (n) => ({ metadata: { name: n }, roleRef: ref, subjects: [] }), subresources: [], deleteCollection: true },
    { resource: 'clusterrolebindings', collection: `${rbac}/clusterrolebindings`, name: 'crb1', fresh: (n) => ({ metadata: { name: n }, roleRef: ref, subjects: [] }), subresources: [], deleteCollection: true },
  ];
}

async function actionsOf(s: ResourceSpec): Promise<Action[]> {
  const item = `${s.collection}/${s.name}`;
  const current = (await api.request('GET', item)).json ?? {};
  const patch = { metadata: { labels: { matrix: 'yes' } } };
  const merge = 'application/merge-patch+json';
  const out: Action[] = [
    { key: `get ${s.resource}`, method: 'GET', path: item },
    { key: `list ${s.resource}`, method: 'GET', path: s.collection },
    { key: `watch ${s.resource}`, method: 'GET', path: `${s.collection}?watch=1&timeoutSeconds=1` },
    { key: `create ${s.resource}`, method: 'POST', path: `${s.collection}?dryRun=All`, body: s.fresh(`${s.name}-new`) },
    { key: `update ${s.resource}`, method: 'PUT', path: `${item}?dryRun=All`, body: current },
    { key: `patch ${s.resource}`, method: 'PATCH', path: `${item}?dryRun=All`, body: patch, contentType: merge },
    { key: `delete ${s.resource}`, method: 'DELETE', path: `${item}?dryRun=All` },
  ];
  if (s.deleteCollection) out.push({ key: `deletecollection ${s.resource}`, method: 'DELETE', path: `${s.collection}?dryRun=All` });
  for (const sub of s.subresources) {
    const body = sub === 'approval' ? { ...current, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Matrix', message: 'm' }] } } : current;
    out.push(
      { key: `get ${s.resource}/${sub}`, method: 'GET', path: `${item}/${sub}` },
      { key: `update ${s.resource}/${sub}`, method: 'PUT', path: `${item}/${sub}?dryRun=All`, body },
      { key: `patch ${s.resource}/${sub}`, method: 'PATCH', path: `${item}/${sub}?dryRun=All`, body: patch, contentType: merge },
    );
  }
  return out;
}

function otherActions(): Action[] {
  const review = (group: string, resource: string, kind: string, spec: unknown): Action => ({
    key: `create ${resource}`,
    method: 'POST',
    path: `/apis/${group}/v1/${resource}`,
    body: { apiVersion: `${group}/v1`, kind, spec },
  });
  const az = 'authorization.k8s.io';
  const an = 'authentication.k8s.io';
  const attrs = { resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'matrix' } };
  return [
    review(az, 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', attrs),
    review(az, 'selfsubjectrulesreviews', 'SelfSubjectRulesReview', { namespace: 'matrix' }),
    review(an, 'selfsubjectreviews', 'SelfSubjectReview', undefined),
    review(az, 'subjectaccessreviews', 'SubjectAccessReview', { ...attrs, user: 'someone' }),
    review(an, 'tokenreviews', 'TokenReview', { token: 'tok-plain' }),
    ...[...DISCOVERY, '/metrics'].map((p) => ({ key: `GET ${p}`, method: 'GET', path: p })),
  ];
}

async function createFixtures(): Promise<void> {
  for (const s of specs()) {
    const r = await api.request('POST', s.collection, { body: s.fresh(s.name) });
    assert.equal(r.status, 201, `${s.resource}: ${r.text}`);
  }
  const r = await api.request('POST', `/apis/${G}/v1/clusterrolebindings`, {
    body: { metadata: { name: 'vera-view' }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'view' }, subjects: [{ apiGroup: G, kind: 'User', name: 'vera' }] },
  });
  assert.equal(r.status, 201, r.text);
}

test('authorization matrix: identities × every verb on every resource, subresource, review and path', async () => {
  await createFixtures();
  const actions = [...(await Promise.all(specs().map(actionsOf))).flat(), ...otherActions()];
  const rows: string[] = [];
  let cells = 0;
  let matching = 0;
  for (const who of IDENTITIES) {
    const results = await Promise.all(
      actions.map(async (a) => {
        const token = TOKENS[who];
        const r = await api.request(a.method, a.path, {
          ...(a.body !== undefined ? { body: a.body } : {}),
          ...(a.contentType !== undefined ? { contentType: a.contentType } : {}),
          ...(token !== undefined ? { token } : who === 'anonymous' ? { anonymous: true } : {}),
        });
        return { a, status: r.status, message: String(r.json?.['message'] ?? '') };
      }),
    );
    for (const { a, status, message } of results) {
      cells++;
      // The admin's answers show each request is well-formed (so a non-403 elsewhere is an allow).
      if (who === 'admin' && status >= 300 && a.key !== 'GET /metrics') rows.push(`admin ${a.key}: want a 2xx, got ${status} ${message}`);
      const allowed = status !== 403 && status !== 401;
      const want = expected(who, a.key);
      if (allowed === want && status < 500) matching++;
      else rows.push(`${who} ${a.key}: want ${want ? 'allowed' : 'denied'}, got ${status} ${message}`);
    }
  }
  process.stdout.write(`# authorization matrix: ${IDENTITIES.length} identities × ${actions.length} actions = ${cells} cells, ${matching} match the reference's default policy\n`);
  assert.deepEqual(rows, []);
  assert.equal(matching, cells);
});
