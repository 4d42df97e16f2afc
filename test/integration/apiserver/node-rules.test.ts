// Node A and node B against the built plat-apiserver with --authorization-mode=Node and the
// NodeRestriction admission plugin: each node's own things are allowed, the other's are refused
// with the reference's answers (status and message written here from the reference's Node
// authorizer, NodeRestriction and Forbidden formats). RBAC is not in the chain, so the answers
// where the Node authorizer has no opinion are the reference's Forbidden without an RBAC grant.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  startApiServer,
  type ApiResponse,
  type StartedApiServer,
} from '../../helpers/apiserver.js';
import { csrBody, makeCsrPem } from '../../helpers/apiserver-fixtures.js';

const D = 'platform.io';
let api: StartedApiServer;
let dir: string;
const A = 'token-node-a';
const B = 'token-node-b';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'node-rules-'));
  writeFileSync(
    join(dir, 'tokens.csv'),
    `${A},system:node:a,ua,system:nodes\n${B},system:node:b,ub,system:nodes\n`,
  );
  api = await startApiServer({
    args: [
      '--authorization-mode=Node',
      '--enable-admission-plugins=NodeRestriction',
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
    ],
  });
  const admin = async (method: string, path: string, body: unknown): Promise<void> => {
    const r = await api.request(method, path, { body });
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
  };
  await admin('POST', '/api/v1/nodes', { metadata: { name: 'b' } });
  const container = [{ name: 'c', image: 'busybox' }];
  await admin('POST', '/api/v1/namespaces/default/pods', {
    metadata: { name: 'pa' },
    spec: {
      nodeName: 'a',
      containers: container,
      volumes: [{ name: 's', secret: { secretName: 'sa' } }],
    },
  });
  await admin('POST', '/api/v1/namespaces/default/pods', {
    metadata: { name: 'pb' },
    spec: { nodeName: 'b', containers: container },
  });
  await admin('POST', '/api/v1/namespaces/default/secrets', {
    metadata: { name: 'sa' },
    stringData: { k: 'v' },
  });
  await admin('POST', '/api/v1/namespaces/default/secrets', {
    metadata: { name: 'sb' },
    stringData: { k: 'v' },
  });
});
after(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const as = (
  token: string,
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
): Promise<ApiResponse> =>
  api.request(method, path, {
    token,
    ...(body !== undefined ? { body } : {}),
    ...(contentType !== undefined ? { contentType } : {}),
  });
const merge = 'application/merge-patch+json';

function expect(r: ApiResponse, status: number, message?: string): void {
  assert.equal(r.status, status, r.text);
  if (message !== undefined) assert.equal(r.json?.['message'], message);
}

const forbiddenNode = (verb: string, name: string, why = ''): string =>
  `nodes${name === '' ? '' : ` "${name}"`} is forbidden: User "system:node:a" cannot ${verb} resource "nodes" in API group "" at the cluster scope${why === '' ? '' : `: ${why}`}`;

test('node A registers only itself, with labels in the allowed set', async () => {
  expect(
    await as(A, 'POST', '/api/v1/nodes', { metadata: { name: 'c' } }),
    403,
    'nodes "c" is forbidden: node "a" is not allowed to modify node "c"',
  );
  expect(
    await as(A, 'POST', '/api/v1/nodes', {
      metadata: {
        name: 'a',
        labels: { [`node-role.${D}/control-plane`]: '', [`${D}/hostname`]: 'a' },
      },
    }),
    403,
    `nodes "a" is forbidden: node "a" is not allowed to set the following labels: node-role.${D}/control-plane`,
  );
  expect(
    await as(A, 'POST', '/api/v1/nodes', {
      metadata: {
        name: 'a',
        labels: {
          [`${D}/hostname`]: 'a',
          [`${D}/os`]: 'linux',
          [`beta.${D}/arch`]: 'amd64',
          [`platlet.${D}/x`]: 'y',
        },
      },
    }),
    201,
  );
});

test('node A reads and writes its own Node and nothing about node B', async () => {
  expect(await as(A, 'GET', '/api/v1/nodes/a'), 200);
  expect(await as(A, 'GET', '/api/v1/nodes?fieldSelector=metadata.name%3Da'), 200);
  expect(
    await as(A, 'GET', '/api/v1/nodes/b'),
    403,
    forbiddenNode('get', 'b', "node 'a' cannot read 'b', only its own Node object"),
  );
  expect(
    await as(A, 'GET', '/api/v1/nodes'),
    403,
    forbiddenNode('list', '', "node 'a' cannot read all nodes, only its own Node object"),
  );
  expect(
    await as(A, 'GET', '/api/v1/nodes?fieldSelector=metadata.name%3Db'),
    403,
    forbiddenNode('list', 'b', "node 'a' cannot read 'b', only its own Node object"),
  );
  expect(
    await as(A, 'PATCH', '/api/v1/nodes/b', { metadata: { labels: { x: 'y' } } }, merge),
    403,
    'nodes "b" is forbidden: node "a" is not allowed to modify node "b"',
  );
  expect(
    await as(A, 'PATCH', '/api/v1/nodes/b/status', { status: { phase: 'Running' } }, merge),
    403,
    'nodes "b" is forbidden: node "a" is not allowed to modify node "b"',
  );
  expect(
    await as(A, 'PATCH', '/api/v1/nodes/b', { spec: { taints: [] } }, merge),
    403,
    'nodes "b" is forbidden: node "a" is not allowed to modify node "b"',
  );
  expect(await as(A, 'DELETE', '/api/v1/nodes/b'), 403, forbiddenNode('delete', 'b'));
  expect(await as(A, 'DELETE', '/api/v1/nodes/a'), 403, forbiddenNode('delete', 'a'));
  expect(
    await as(
      A,
      'PATCH',
      '/api/v1/nodes/a',
      { metadata: { labels: { [`node-role.${D}/worker`]: '' } } },
      merge,
    ),
    403,
    `nodes "a" is forbidden: is not allowed to modify labels: node-role.${D}/worker`,
  );
  expect(
    await as(
      A,
      'PATCH',
      '/api/v1/nodes/a',
      { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] } },
      merge,
    ),
    403,
    'nodes "a" is forbidden: node "a" is not allowed to modify taints',
  );
  expect(
    await as(
      A,
      'PATCH',
      '/api/v1/nodes/a',
      { metadata: { labels: { [`node.${D}/pool`]: 'blue' } } },
      merge,
    ),
    200,
  );
  expect(
    await as(
      A,
      'PATCH',
      '/api/v1/nodes/a/status',
      { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
      merge,
    ),
    200,
  );
  // node B is as confined
  expect(
    await as(B, 'GET', '/api/v1/nodes/a'),
    403,
    `nodes "a" is forbidden: User "system:node:b" cannot get resource "nodes" in API group "" at the cluster scope: node 'b' cannot read 'a', only its own Node object`,
  );
  expect(await as(B, 'GET', '/api/v1/nodes/b'), 200);
});

test('pods: node A sees, updates and deletes only pods bound to it; it creates only its own mirror pods', async () => {
  const noRel = (name: string, verb = 'get'): string =>
    `pods "${name}" is forbidden: User "system:node:a" cannot ${verb} resource "pods" in API group "" in the namespace "default": no relationship found between node 'a' and this object`;
  expect(await as(A, 'GET', '/api/v1/namespaces/default/pods/pa'), 200);
  expect(await as(A, 'GET', '/api/v1/namespaces/default/pods/pb'), 403, noRel('pb'));
  const mine = await as(A, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Da');
  expect(mine, 200);
  assert.deepEqual(
    (mine.json?.['items'] as { metadata: { name: string } }[]).map((p) => p.metadata.name),
    ['pa'],
  );
  expect(
    await as(A, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Db'),
    403,
    'pods is forbidden: User "system:node:a" cannot list resource "pods" in API group "" at the cluster scope: can only list/watch pods with spec.nodeName field selector',
  );
  expect(
    await as(A, 'GET', '/api/v1/pods'),
    403,
    'pods is forbidden: User "system:node:a" cannot list resource "pods" in API group "" at the cluster scope: can only list/watch pods with spec.nodeName field selector',
  );
  expect(
    await as(A, 'DELETE', '/api/v1/namespaces/default/pods/pb'),
    403,
    'pods "pb" is forbidden: node "a" can only delete pods with spec.nodeName set to itself',
  );
  expect(
    await as(
      A,
      'PATCH',
      '/api/v1/namespaces/default/pods/pb/status',
      { status: { phase: 'Failed' } },
      merge,
    ),
    403,
    'pods "pb" is forbidden: node "a" can only update pod status for pods with spec.nodeName set to itself',
  );
  expect(
    await as(
      A,
      'PATCH',
      '/api/v1/namespaces/default/pods/pa/status',
      { status: { phase: 'Running' } },
      merge,
    ),
    200,
  );
  expect(
    await as(
      A,
      'PATCH',
      '/api/v1/namespaces/default/pods/pa',
      { metadata: { labels: { x: 'y' } } },
      merge,
    ),
    403,
    'pods "pa" is forbidden: User "system:node:a" cannot patch resource "pods" in API group "" in the namespace "default"',
  );
  const spec = { nodeName: 'a', containers: [{ name: 'c', image: 'busybox' }] };
  expect(
    await as(A, 'POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'static-a' },
      spec,
    }),
    403,
    `pods "static-a" is forbidden: pod does not have "${D}/config.mirror" annotation, node "a" can only create mirror pods`,
  );
  const nodeA = await as(A, 'GET', '/api/v1/nodes/a');
  const uid = (nodeA.json?.['metadata'] as { uid: string }).uid;
  const mirror = {
    annotations: { [`${D}/config.mirror`]: 'h' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'a', uid, controller: true }],
  };
  expect(
    await as(A, 'POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'static-b', ...mirror },
      spec: { ...spec, nodeName: 'b' },
    }),
    403,
    'pods "static-b" is forbidden: node "a" can only create pods with spec.nodeName set to itself',
  );
  expect(
    await as(A, 'POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'static-a', ...mirror },
      spec,
    }),
    201,
  );
  expect(
    await as(A, 'DELETE', '/api/v1/namespaces/default/pods/static-a?gracePeriodSeconds=0'),
    200,
  );
  expect(
    await as(B, 'DELETE', '/api/v1/namespaces/default/pods/pa'),
    403,
    'pods "pa" is forbidden: node "b" can only delete pods with spec.nodeName set to itself',
  );
});

test('secrets: node A reads only those its pods refer to; CSRs as the reference (every node reads every CSR); no namespaces', async () => {
  expect(await as(A, 'GET', '/api/v1/namespaces/default/secrets/sa'), 200);
  expect(
    await as(A, 'GET', '/api/v1/namespaces/default/secrets/sb'),
    403,
    `secrets "sb" is forbidden: User "system:node:a" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node 'a' and this object`,
  );
  expect(
    await as(A, 'GET', '/api/v1/namespaces/kube-system/secrets'),
    403,
    'secrets is forbidden: User "system:node:a" cannot list resource "secrets" in API group "" in the namespace "kube-system": No Object name found',
  );
  const csrs = `/apis/certificates.${D}/v1/certificatesigningrequests`;
  const { csrPem } = await makeCsrPem({ cn: 'system:node:b', orgs: ['system:nodes'] });
  expect(
    await as(
      B,
      'POST',
      csrs,
      csrBody('csr-of-b', csrPem, `${D}/plat-apiserver-client-platlet`, [
        'digital signature',
        'client auth',
      ]),
    ),
    201,
  );
  // The reference's system:node rules grant get/list/watch on every CSR (no resourceNames).
  expect(await as(A, 'GET', `${csrs}/csr-of-b`), 200);
  expect(
    await as(A, 'DELETE', `${csrs}/csr-of-b`),
    403,
    `certificatesigningrequests.certificates.${D} "csr-of-b" is forbidden: User "system:node:a" cannot delete resource "certificatesigningrequests" in API group "certificates.${D}" at the cluster scope`,
  );
  expect(
    await as(A, 'PUT', `${csrs}/csr-of-b/approval`, {}),
    403,
    `certificatesigningrequests.certificates.${D} "csr-of-b" is forbidden: User "system:node:a" cannot update resource "certificatesigningrequests/approval" in API group "certificates.${D}" at the cluster scope`,
  );
  expect(
    await as(A, 'POST', '/api/v1/namespaces', { metadata: { name: 'x' } }),
    403,
    'namespaces is forbidden: User "system:node:a" cannot create resource "namespaces" in API group "" at the cluster scope',
  );
  const ev = {
    metadata: { name: 'e1' },
    involvedObject: { kind: 'Node', name: 'a' },
    reason: 'R',
    message: 'm',
    type: 'Normal',
    source: { component: 'platlet', host: 'a' },
  };
  expect(await as(A, 'POST', '/api/v1/namespaces/default/events', ev), 201);
});

test('a stale resourceVersion: NodeRestriction refuses node B before the conflict check (403, as the reference, whose mutating admission runs first); node A gets the 409', async () => {
  const stale = (await api.request('GET', '/api/v1/nodes/a')).json ?? {};
  expect(
    await api.request('PATCH', '/api/v1/nodes/a', {
      body: { metadata: { labels: { bumped: 'yes' } } },
      contentType: merge,
    }),
    200,
  );
  expect(
    await as(B, 'PUT', '/api/v1/nodes/a', stale),
    403,
    'nodes "a" is forbidden: node "b" is not allowed to modify node "a"',
  );
  expect(
    await as(A, 'PUT', '/api/v1/nodes/a', stale),
    409,
    'Operation cannot be fulfilled on nodes "a": the object has been modified; please apply your changes to the latest version and try again',
  );
});
