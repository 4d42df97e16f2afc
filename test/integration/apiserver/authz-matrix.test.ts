// The authorization matrix under the default --authorization-mode=Node,RBAC, the reconciled
// bootstrap policy and NodeRestriction (what kubeadm enables; on by default, no flag given), with the kubernetes naming profile:
// identities (admin in system:masters, a user bound to `view`, a bootstrap token user in
// system:bootstrappers, a plain authenticated user, anonymous, node A and node B as
// `system:node:<name>` in system:nodes) × every verb on every resource and subresource served
// (nodes own/other, leases own/other and outside the node-lease namespace, pods bound to A, to B,
// unbound and mirror pods, CSRs of each node and of the admin with status and approval, events,
// secrets and config maps referred to by pods of A, of B and by none, namespaces, RBAC objects),
// the reviews and the discovery paths. The expected answers are written out in
// ./authz-matrix-policy.ts from the reference's documented policy. Writes are sent with
// dryRun=All so every identity sees the same objects. The figure printed at the end is the matrix
// size and how many cells match.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { csrBody, makeCsrPem } from '../../helpers/apiserver-fixtures.js';
import {
  DISCOVERY_PATHS,
  IDENTITIES,
  expected,
  type Identity,
  type MatrixAction,
} from './authz-matrix-policy.js';

const G = 'rbac.authorization.k8s.io';
const LEASES_NS = 'kube-node-lease';
const MIRROR = 'kubernetes.io/config.mirror';
const TOKENS: Partial<Record<Identity, string>> = {
  viewer: 'tok-viewer',
  bootstrap: 'abcdef.0123456789abcdef',
  plain: 'tok-plain',
  'node-a': 'tok-node-a',
  'node-b': 'tok-node-b',
};
type Owner = 'node-a' | 'node-b';
type Obj = Record<string, unknown>;

interface Action extends MatrixAction {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly contentType?: string;
  /** The admin's status when it is not a 2xx (creating what exists: 409 after admission). */
  readonly adminStatus?: number;
}

interface Item {
  readonly name: string;
  readonly owner?: Owner;
  /** Created by the fixture as this identity (default admin). */
  readonly as?: Identity;
  readonly body: Obj;
}

interface Target {
  readonly resource: string;
  readonly collection: string;
  readonly items: readonly Item[];
  /** Bodies for `create` (name, owner, whether a mirror pod, the admin's status). */
  readonly creates: readonly {
    name: string;
    body: Obj;
    owner?: Owner;
    mirror?: boolean;
    adminStatus?: number;
  }[];
  readonly subresources: readonly string[];
  /** List and watch with a field selector that confines them to one node's objects. */
  readonly selectors: readonly { query: string; owner: Owner }[];
  readonly otherNamespace?: boolean;
}

let api: StartedApiServer;
let dir: string;
let csrPem = '';
const nodeUids = new Map<string, string>();

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pa-matrix-'));
  const line = (who: Identity, user: string, groups = ''): string =>
    `${TOKENS[who] ?? ''},${user},uid-${who},${groups === '' ? '' : `"${groups}"`}`;
  writeFileSync(
    join(dir, 'tokens.csv'),
    [
      line('viewer', 'vera'),
      line('plain', 'paul'),
      line('bootstrap', 'system:bootstrap:abcdef', 'system:bootstrappers'),
      line('node-a', 'system:node:node-a', 'system:nodes'),
      line('node-b', 'system:node:node-b', 'system:nodes'),
    ].join('\n') + '\n',
  );
  api = await startApiServer({
    platformDomain: 'k8s.io',
    // No node heartbeats here: a long grace period keeps the node lifecycle controller from
    // tainting the Nodes (and changing their resourceVersion) while the matrix runs.
    args: [
      '--platform-profile=kubernetes',
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      '--anonymous-auth=true',
      '--node-monitor-grace-period=1h',
    ],
  });
  csrPem = (await makeCsrPem({ cn: 'matrix' })).csrPem;
});
after(async () => {
  await api?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const container = [{ name: 'c', image: 'busybox:1' }];
const pod = (name: string, nodeName: string | undefined, refs: string): Obj => ({
  metadata: { name },
  spec: {
    ...(nodeName !== undefined ? { nodeName } : {}),
    containers:
      refs === ''
        ? container
        : [{ ...container[0], envFrom: [{ configMapRef: { name: `cm-${refs}` } }] }],
    ...(refs === '' ? {} : { volumes: [{ name: 's', secret: { secretName: `s-${refs}` } }] }),
  },
});
const mirrorPod = (name: string, node: Owner): Obj => ({
  metadata: {
    name,
    annotations: { [MIRROR]: 'hash' },
    ownerReferences: [
      {
        apiVersion: 'v1',
        kind: 'Node',
        name: node,
        uid: nodeUids.get(node) ?? '',
        controller: true,
      },
    ],
  },
  spec: { nodeName: node, containers: container },
});
const lease = (name: string): Obj => ({
  metadata: { name },
  spec: { holderIdentity: name, leaseDurationSeconds: 40 },
});
const named = (name: string, extra: Obj = {}): Obj => ({ metadata: { name }, ...extra });
const csr = (name: string): Obj =>
  csrBody(name, csrPem, 'example.com/matrix', ['client auth'], {}, 'k8s.io');
const selectorOf = (field: string, value: string): string =>
  `fieldSelector=${encodeURIComponent(`${field}=${value}`)}`;

function coreTargets(): Target[] {
  const ns = '/api/v1/namespaces/matrix';
  const perNode = (prefix: string, body: (n: string) => Obj): Item[] => [
    { name: `${prefix}-a`, owner: 'node-a', body: body(`${prefix}-a`) },
    { name: `${prefix}-b`, owner: 'node-b', body: body(`${prefix}-b`) },
    { name: `${prefix}-none`, body: body(`${prefix}-none`) },
  ];
  const byName = (prefix: string): Target['selectors'] => [
    { query: selectorOf('metadata.name', `${prefix}-a`), owner: 'node-a' },
  ];
  return [
    {
      resource: 'namespaces',
      collection: '/api/v1/namespaces',
      items: [{ name: 'matrix', body: named('matrix') }],
      creates: [{ name: 'matrix-new', body: named('matrix-new') }],
      subresources: ['status'],
      selectors: [],
    },
    {
      resource: 'events',
      collection: `${ns}/events`,
      items: [
        {
          name: 'e1',
          body: named('e1', {
            involvedObject: { kind: 'Pod', name: 'pod-a', namespace: 'matrix' },
            reason: 'R',
            message: 'm',
          }),
        },
      ],
      creates: [
        {
          name: 'e-new',
          body: named('e-new', {
            involvedObject: { kind: 'Pod', name: 'pod-a', namespace: 'matrix' },
            reason: 'R',
            message: 'm',
          }),
        },
      ],
      subresources: [],
      selectors: [],
    },
    {
      resource: 'nodes',
      collection: '/api/v1/nodes',
      items: [
        { name: 'node-a', owner: 'node-a', body: named('node-a') },
        { name: 'node-b', owner: 'node-b', body: named('node-b') },
      ],
      creates: [
        { name: 'node-a', owner: 'node-a', body: named('node-a'), adminStatus: 409 },
        { name: 'node-new', body: named('node-new') },
      ],
      subresources: ['status'],
      selectors: [{ query: selectorOf('metadata.name', 'node-a'), owner: 'node-a' }],
    },
    {
      resource: 'secrets',
      collection: `${ns}/secrets`,
      items: perNode('s', (n) => named(n, { stringData: { k: 'v' } })),
      creates: [{ name: 's-new', body: named('s-new') }],
      subresources: [],
      selectors: byName('s'),
    },
    {
      resource: 'configmaps',
      collection: `${ns}/configmaps`,
      items: perNode('cm', (n) => named(n, { data: { k: 'v' } })),
      creates: [{ name: 'cm-new', body: named('cm-new') }],
      subresources: [],
      selectors: byName('cm'),
    },
  ];
}

function podAndLeaseTargets(): Target[] {
  const pods = '/api/v1/namespaces/matrix/pods';
  return [
    {
      resource: 'pods',
      collection: pods,
      items: [
        { name: 'pod-a', owner: 'node-a', body: pod('pod-a', 'node-a', 'a') },
        { name: 'pod-b', owner: 'node-b', body: pod('pod-b', 'node-b', 'b') },
        { name: 'pod-unbound', body: pod('pod-unbound', undefined, '') },
        { name: 'mirror-a', owner: 'node-a', body: mirrorPod('mirror-a', 'node-a') },
      ],
      creates: [
        { name: 'pod-new', body: pod('pod-new', undefined, '') },
        { name: 'bound-new-a', owner: 'node-a', body: pod('bound-new-a', 'node-a', '') },
        {
          name: 'mirror-new-a',
          owner: 'node-a',
          mirror: true,
          body: mirrorPod('mirror-new-a', 'node-a'),
        },
        {
          name: 'mirror-new-b',
          owner: 'node-b',
          mirror: true,
          body: mirrorPod('mirror-new-b', 'node-b'),
        },
      ],
      subresources: ['status'],
      selectors: [
        { query: selectorOf('spec.nodeName', 'node-a'), owner: 'node-a' },
        { query: selectorOf('metadata.name', 'pod-a'), owner: 'node-a' },
      ],
    },
    {
      resource: 'leases',
      collection: `/apis/coordination.k8s.io/v1/namespaces/${LEASES_NS}/leases`,
      items: [
        { name: 'node-a', owner: 'node-a', body: lease('node-a') },
        { name: 'node-b', owner: 'node-b', body: lease('node-b') },
      ],
      creates: [
        { name: 'node-a', owner: 'node-a', body: lease('node-a'), adminStatus: 409 },
        { name: 'lease-new', body: lease('lease-new') },
      ],
      subresources: [],
      selectors: [],
    },
    {
      resource: 'leases',
      collection: '/apis/coordination.k8s.io/v1/namespaces/matrix/leases',
      items: [{ name: 'node-a', owner: 'node-a', body: lease('node-a') }],
      creates: [{ name: 'node-b', owner: 'node-b', body: lease('node-b') }],
      subresources: [],
      selectors: [],
      otherNamespace: true,
    },
  ];
}

function otherTargets(): Target[] {
  const rbac = `/apis/${G}/v1`;
  const rule = [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }];
  const ref = { apiGroup: G, kind: 'ClusterRole', name: 'view' };
  const simple = (
    resource: string,
    collection: string,
    name: string,
    body: (n: string) => Obj,
  ): Target => ({
    resource,
    collection,
    items: [{ name, body: body(name) }],
    creates: [{ name: `${name}-new`, body: body(`${name}-new`) }],
    subresources: [],
    selectors: [],
  });
  return [
    {
      resource: 'certificatesigningrequests',
      collection: '/apis/certificates.k8s.io/v1/certificatesigningrequests',
      items: [
        { name: 'csr-admin', body: csr('csr-admin') },
        { name: 'csr-a', as: 'node-a', body: csr('csr-a') },
        { name: 'csr-b', as: 'node-b', body: csr('csr-b') },
      ],
      creates: [{ name: 'csr-new', body: csr('csr-new') }],
      subresources: ['status', 'approval'],
      selectors: [],
    },
    simple('roles', `${rbac}/namespaces/matrix/roles`, 'r1', (n) => named(n, { rules: rule })),
    simple('clusterroles', `${rbac}/clusterroles`, 'cr1', (n) => named(n, { rules: rule })),
    simple('rolebindings', `${rbac}/namespaces/matrix/rolebindings`, 'rb1', (n) =>
      named(n, { roleRef: ref, subjects: [] }),
    ),
    simple('clusterrolebindings', `${rbac}/clusterrolebindings`, 'crb1', (n) =>
      named(n, { roleRef: ref, subjects: [] }),
    ),
  ];
}

const targets = (): Target[] => [...coreTargets(), ...podAndLeaseTargets(), ...otherTargets()];

async function createItem(t: Target, item: Item): Promise<void> {
  const token = item.as === undefined ? undefined : TOKENS[item.as];
  const r = await api.request('POST', t.collection, {
    body: item.body,
    ...(token !== undefined ? { token } : {}),
  });
  assert.equal(r.status, 201, `${t.resource} ${item.name}: ${r.text}`);
  if (t.resource === 'nodes') nodeUids.set(item.name, String((r.json?.['metadata'] as Obj)['uid']));
}

async function createFixtures(): Promise<void> {
  // Nodes first: mirror pods name their UID, so the pod targets are built after them.
  for (const group of [coreTargets, podAndLeaseTargets, otherTargets]) {
    for (const t of group()) for (const item of t.items) await createItem(t, item);
  }
  const r = await api.request('POST', `/apis/${G}/v1/clusterrolebindings`, {
    body: {
      metadata: { name: 'vera-view' },
      roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: G, kind: 'User', name: 'vera' }],
    },
  });
  assert.equal(r.status, 201, r.text);
}

async function itemActions(t: Target, item: Item): Promise<Action[]> {
  const path = `${t.collection}/${item.name}`;
  const current = (await api.request('GET', path)).json ?? {};
  const rel = {
    ...(item.owner !== undefined ? { owner: item.owner } : {}),
    ...(t.otherNamespace === true ? { otherNamespace: true } : {}),
  };
  const at = (
    verb: string,
    resource: string,
    method: string,
    p: string,
    extra: Partial<Action> = {},
  ): Action => ({
    key: `${verb} ${resource} ${t.otherNamespace === true ? 'matrix/' : ''}${item.name}`,
    verb,
    resource,
    method,
    path: p,
    ...rel,
    ...extra,
  });
  const merge = 'application/merge-patch+json';
  const out: Action[] = [
    at('get', t.resource, 'GET', path),
    at('update', t.resource, 'PUT', `${path}?dryRun=All`, { body: current }),
    at('patch', t.resource, 'PATCH', `${path}?dryRun=All`, {
      body: { metadata: { labels: { matrix: 'yes' } } },
      contentType: merge,
    }),
    at('delete', t.resource, 'DELETE', `${path}?dryRun=All`),
  ];
  for (const sub of t.subresources) {
    const body =
      sub === 'approval'
        ? {
            ...current,
            status: {
              conditions: [{ type: 'Approved', status: 'True', reason: 'Matrix', message: 'm' }],
            },
          }
        : current;
    const r = `${t.resource}/${sub}`;
    out.push(
      at('get', r, 'GET', `${path}/${sub}`),
      at('update', r, 'PUT', `${path}/${sub}?dryRun=All`, { body }),
      // A status write that changes no label (NodeRestriction refuses label changes through pod status).
      at('patch', r, 'PATCH', `${path}/${sub}?dryRun=All`, {
        body: { metadata: { annotations: { matrix: 'yes' } } },
        contentType: merge,
      }),
    );
  }
  return out;
}

function collectionActions(t: Target): Action[] {
  const where = t.otherNamespace === true ? ' matrix/' : ' ';
  const rel = t.otherNamespace === true ? { otherNamespace: true } : {};
  const out: Action[] = [
    {
      key: `list ${t.resource}${where}`,
      verb: 'list',
      resource: t.resource,
      method: 'GET',
      path: t.collection,
      ...rel,
    },
    {
      key: `watch ${t.resource}${where}`,
      verb: 'watch',
      resource: t.resource,
      method: 'GET',
      path: `${t.collection}?watch=1&timeoutSeconds=1`,
      ...rel,
    },
    {
      key: `deletecollection ${t.resource}${where}`,
      verb: 'deletecollection',
      resource: t.resource,
      method: 'DELETE',
      path: `${t.collection}?dryRun=All`,
      ...rel,
    },
  ];
  for (const s of t.selectors) {
    out.push(
      {
        key: `list ${t.resource}${where}?${decodeURIComponent(s.query)}`,
        verb: 'list',
        resource: t.resource,
        method: 'GET',
        path: `${t.collection}?${s.query}`,
        owner: s.owner,
      },
      {
        key: `watch ${t.resource}${where}?${decodeURIComponent(s.query)}`,
        verb: 'watch',
        resource: t.resource,
        method: 'GET',
        path: `${t.collection}?${s.query}&watch=1&timeoutSeconds=1`,
        owner: s.owner,
      },
    );
  }
  for (const c of t.creates) {
    out.push({
      key: `create ${t.resource}${where}${c.name}`,
      verb: 'create',
      resource: t.resource,
      method: 'POST',
      path: `${t.collection}?dryRun=All`,
      body: c.body,
      ...rel,
      ...(c.owner !== undefined ? { owner: c.owner } : {}),
      ...(c.mirror === true ? { mirror: true } : {}),
      ...(c.adminStatus !== undefined ? { adminStatus: c.adminStatus } : {}),
    });
  }
  return out;
}

function reviewActions(): Action[] {
  const review = (group: string, resource: string, kind: string, spec: unknown): Action => ({
    key: `create ${resource}`,
    verb: 'create',
    resource,
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
    {
      ...review(az, 'localsubjectaccessreviews', 'LocalSubjectAccessReview', {
        ...attrs,
        user: 'someone',
      }),
      path: `/apis/${az}/v1/namespaces/matrix/localsubjectaccessreviews`,
    },
    review(an, 'tokenreviews', 'TokenReview', { token: 'tok-plain' }),
    ...[...DISCOVERY_PATHS, '/metrics'].map((p) => ({
      key: `GET ${p}`,
      verb: 'GET',
      resource: p,
      method: 'GET',
      path: p,
    })),
  ];
}

async function allActions(): Promise<Action[]> {
  const out: Action[] = [];
  for (const t of targets()) {
    for (const item of t.items) out.push(...(await itemActions(t, item)));
    out.push(...collectionActions(t));
  }
  return [...out, ...reviewActions()];
}

async function answer(who: Identity, a: Action): Promise<{ status: number; message: string }> {
  const token = TOKENS[who];
  const r = await api.request(a.method, a.path, {
    ...(a.body !== undefined ? { body: a.body } : {}),
    ...(a.contentType !== undefined ? { contentType: a.contentType } : {}),
    ...(token !== undefined ? { token } : who === 'anonymous' ? { anonymous: true } : {}),
  });
  return { status: r.status, message: String(r.json?.['message'] ?? '') };
}

test('authorization matrix: 7 identities (with node A and node B) × every verb on every resource, subresource, review and path', async () => {
  await createFixtures();
  const actions = await allActions();
  assert.equal(
    new Set(actions.map((a) => a.key)).size,
    actions.length,
    'every action has its own key',
  );
  const rows: string[] = [];
  let cells = 0;
  let matching = 0;
  for (const who of IDENTITIES) {
    const results = await Promise.all(actions.map(async (a) => ({ a, ...(await answer(who, a)) })));
    for (const { a, status, message } of results) {
      cells++;
      // The admin's answers show each request is well-formed (so a non-403 elsewhere is an allow).
      const adminOk =
        a.adminStatus !== undefined
          ? status === a.adminStatus
          : status < 300 || a.key === 'GET /metrics';
      if (who === 'admin' && !adminOk)
        rows.push(`admin ${a.key}: want ${a.adminStatus ?? 'a 2xx'}, got ${status} ${message}`);
      const allowed = status !== 403 && status !== 401;
      const want = expected(who, a);
      if (allowed === want && status < 500) matching++;
      else
        rows.push(`${who} ${a.key}: want ${want ? 'allowed' : 'denied'}, got ${status} ${message}`);
    }
  }
  process.stdout.write(
    `# authorization matrix: ${IDENTITIES.length} identities × ${actions.length} actions = ${cells} cells, ${matching} match the reference's default policy\n`,
  );
  assert.deepEqual(rows, []);
  assert.equal(matching, cells);
});
