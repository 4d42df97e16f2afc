// The Node authorizer against the reference's (plugin/pkg/auth/authorizer/node, Kubernetes 1.32,
// AuthorizeNodeWithSelectors on): node A and node B, each asking about its own things and the
// other's. The expected decisions and reasons are the reference's, written out here.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'node:test';
import { NodeAuthorizer } from '../../../../src/apiserver/authz/node/authorizer.js';
import type { NodeObjects } from '../../../../src/apiserver/authz/node/objects.js';
import { requestAttributes } from '../../../../src/apiserver/authz/attributes.js';
import type { RequestAttributes } from '../../../../src/apiserver/interfaces.js';
import type { UserInfo } from '../../../../src/common/auth/user.js';
import { fuzzParams } from '../../../helpers/fuzz-runs.js';

const D = 'platform.io';
type Obj = Record<string, unknown>;
const pods: Obj[] = [
  {
    metadata: { namespace: 'default', name: 'pa' },
    spec: {
      nodeName: 'a',
      volumes: [
        { name: 'v', secret: { secretName: 'sa' } },
        { name: 'p', projected: { sources: [{ configMap: { name: 'cma' } }] } },
      ],
      containers: [
        {
          name: 'c',
          env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'senv', key: 'k' } } }],
          envFrom: [{ configMapRef: { name: 'cmenv' } }],
        },
      ],
      imagePullSecrets: [{ name: 'pull' }],
    },
  },
  {
    metadata: { namespace: 'default', name: 'pb' },
    spec: {
      nodeName: 'b',
      volumes: [{ name: 'v', secret: { secretName: 'sb' } }],
      containers: [{ name: 'c' }],
    },
  },
];
const objects: NodeObjects = {
  getPod: (ns, name) =>
    Promise.resolve(
      pods.find(
        (p) =>
          (p['metadata'] as Obj)['namespace'] === ns && (p['metadata'] as Obj)['name'] === name,
      ),
    ),
  podsBoundTo: (node, ns) =>
    Promise.resolve(
      pods.filter(
        (p) =>
          (p['metadata'] as Obj)['namespace'] === ns && (p['spec'] as Obj)['nodeName'] === node,
      ),
    ),
  getNode: () => Promise.resolve(undefined),
};
const authz = new NodeAuthorizer({
  platformDomain: D,
  nodeLeaseNamespace: 'kube-node-lease',
  objects,
});
const nodeA: UserInfo = {
  username: 'system:node:a',
  groups: ['system:nodes', 'system:authenticated'],
};

function attrs(
  method: string,
  path: string,
  query = '',
  user: UserInfo = nodeA,
): RequestAttributes {
  return requestAttributes(method, path, new URLSearchParams(query), user);
}

async function decide(
  method: string,
  path: string,
  query = '',
  user: UserInfo = nodeA,
): Promise<string> {
  const d = await authz.authorize(attrs(method, path, query, user));
  return d.reason === undefined ? d.decision : `${d.decision}: ${d.reason}`;
}

test('not a node (no system:nodes group, or another user name): no opinion, no reason', async () => {
  assert.equal(
    await decide('GET', '/api/v1/nodes/a', '', {
      username: 'system:node:a',
      groups: ['system:authenticated'],
    }),
    'no-opinion',
  );
  assert.equal(
    await decide('GET', '/api/v1/nodes/a', '', { username: 'alice', groups: ['system:nodes'] }),
    'no-opinion',
  );
  assert.equal(
    await decide('GET', '/api/v1/nodes/x', '', {
      username: 'system:node:',
      groups: ['system:nodes'],
    }),
    'no-opinion: unknown node for user "system:node:"',
  );
});

test('nodes: node A reads only its own Node; create/update/patch are left to NodeRestriction; delete is not granted', async () => {
  const cases: [string, string, string, string][] = [
    ['GET', '/api/v1/nodes/a', '', 'allow'],
    [
      'GET',
      '/api/v1/nodes/b',
      '',
      "no-opinion: node 'a' cannot read 'b', only its own Node object",
    ],
    [
      'GET',
      '/api/v1/nodes',
      '',
      "no-opinion: node 'a' cannot read all nodes, only its own Node object",
    ],
    [
      'GET',
      '/api/v1/nodes',
      'watch=true',
      "no-opinion: node 'a' cannot read all nodes, only its own Node object",
    ],
    // a list or watch pinned by metadata.name is about that name (the reference's RequestInfo)
    ['GET', '/api/v1/nodes', 'fieldSelector=metadata.name%3Da', 'allow'],
    ['GET', '/api/v1/nodes', 'watch=1&fieldSelector=metadata.name%3Da', 'allow'],
    [
      'GET',
      '/api/v1/nodes',
      'fieldSelector=metadata.name%3Db',
      "no-opinion: node 'a' cannot read 'b', only its own Node object",
    ],
    ['POST', '/api/v1/nodes', '', 'allow'],
    ['PATCH', '/api/v1/nodes/b', '', 'allow'],
    ['PUT', '/api/v1/nodes/b', '', 'allow'],
    ['PATCH', '/api/v1/nodes/b/status', '', 'allow'],
    ['GET', '/api/v1/nodes/a/status', '', 'no-opinion'],
    ['DELETE', '/api/v1/nodes/b', '', 'no-opinion'],
    ['DELETE', '/api/v1/nodes/a', '', 'no-opinion'],
    ['DELETE', '/api/v1/nodes', '', 'no-opinion'],
  ];
  for (const [m, p, q, want] of cases) assert.equal(await decide(m, p, q), want, `${m} ${p}?${q}`);
});

test('pods: bound to A readable, list/watch only with spec.nodeName=a, create/delete/status left to NodeRestriction', async () => {
  const cases: [string, string, string, string][] = [
    ['GET', '/api/v1/namespaces/default/pods/pa', '', 'allow'],
    [
      'GET',
      '/api/v1/namespaces/default/pods/pb',
      '',
      "no-opinion: no relationship found between node 'a' and this object",
    ],
    [
      'GET',
      '/api/v1/namespaces/default/pods/missing',
      '',
      "no-opinion: no relationship found between node 'a' and this object",
    ],
    ['GET', '/api/v1/pods', 'fieldSelector=spec.nodeName%3Da', 'allow'],
    ['GET', '/api/v1/pods', 'watch=true&fieldSelector=spec.nodeName%3Da', 'allow'],
    [
      'GET',
      '/api/v1/pods',
      'fieldSelector=spec.nodeName%3Db',
      'no-opinion: can only list/watch pods with spec.nodeName field selector',
    ],
    [
      'GET',
      '/api/v1/pods',
      'fieldSelector=spec.nodeName!%3Db',
      'no-opinion: can only list/watch pods with spec.nodeName field selector',
    ],
    [
      'GET',
      '/api/v1/pods',
      '',
      'no-opinion: can only list/watch pods with spec.nodeName field selector',
    ],
    ['GET', '/api/v1/namespaces/default/pods', 'fieldSelector=metadata.name%3Dpa', 'allow'],
    [
      'GET',
      '/api/v1/namespaces/default/pods',
      'fieldSelector=metadata.name%3Dpb',
      "no-opinion: no relationship found between node 'a' and this object",
    ],
    ['POST', '/api/v1/namespaces/default/pods', '', 'allow'],
    ['DELETE', '/api/v1/namespaces/default/pods/pb', '', 'allow'],
    ['PUT', '/api/v1/namespaces/default/pods/pb/status', '', 'allow'],
    ['PATCH', '/api/v1/namespaces/default/pods/pb/status', '', 'allow'],
    ['POST', '/api/v1/namespaces/default/pods/pa/eviction', '', 'allow'],
    ['PUT', '/api/v1/namespaces/default/pods/pa', '', 'no-opinion'],
    ['PATCH', '/api/v1/namespaces/default/pods/pa', '', 'no-opinion'],
    ['DELETE', '/api/v1/namespaces/default/pods', '', 'no-opinion'],
  ];
  for (const [m, p, q, want] of cases) assert.equal(await decide(m, p, q), want, `${m} ${p}?${q}`);
});

test('secrets and config maps: only those a pod bound to A refers to, read only, by name', async () => {
  const rel = "no-opinion: no relationship found between node 'a' and this object";
  const cases: [string, string, string, string][] = [
    ['GET', '/api/v1/namespaces/default/secrets/sa', '', 'allow'],
    ['GET', '/api/v1/namespaces/default/secrets/senv', '', 'allow'],
    ['GET', '/api/v1/namespaces/default/secrets/pull', '', 'allow'],
    [
      'GET',
      '/api/v1/namespaces/default/secrets',
      'watch=true&fieldSelector=metadata.name%3Dsa',
      'allow',
    ],
    ['GET', '/api/v1/namespaces/default/secrets/sb', '', rel],
    ['GET', '/api/v1/namespaces/other/secrets/sa', '', rel],
    ['GET', '/api/v1/namespaces/kube-system/secrets/bootstrap-token-abcdef', '', rel],
    ['GET', '/api/v1/namespaces/kube-system/secrets', '', 'no-opinion: No Object name found'],
    ['GET', '/api/v1/secrets', '', 'no-opinion: can only read namespaced object of this type'],
    [
      'PUT',
      '/api/v1/namespaces/default/secrets/sa',
      '',
      'no-opinion: can only read resources of this type',
    ],
    [
      'DELETE',
      '/api/v1/namespaces/default/secrets/sa',
      '',
      'no-opinion: can only read resources of this type',
    ],
    ['GET', '/api/v1/namespaces/default/configmaps/cma', '', 'allow'],
    ['GET', '/api/v1/namespaces/default/configmaps/cmenv', '', 'allow'],
    ['GET', '/api/v1/namespaces/default/configmaps/sa', '', rel],
    [
      'POST',
      '/api/v1/namespaces/default/configmaps',
      '',
      'no-opinion: can only read resources of this type',
    ],
  ];
  for (const [m, p, q, want] of cases) assert.equal(await decide(m, p, q), want, `${m} ${p}?${q}`);
});

test('leases: its own in the node-lease namespace only', async () => {
  const l = `/apis/coordination.${D}/v1/namespaces`;
  const cases: [string, string, string][] = [
    ['GET', `${l}/kube-node-lease/leases/a`, 'allow'],
    ['PUT', `${l}/kube-node-lease/leases/a`, 'allow'],
    ['PATCH', `${l}/kube-node-lease/leases/a`, 'allow'],
    ['DELETE', `${l}/kube-node-lease/leases/a`, 'allow'],
    ['POST', `${l}/kube-node-lease/leases`, 'allow'],
    [
      'GET',
      `${l}/kube-node-lease/leases/b`,
      'no-opinion: can only access node lease with the same name as the requesting node',
    ],
    [
      'PUT',
      `${l}/kube-node-lease/leases/b`,
      'no-opinion: can only access node lease with the same name as the requesting node',
    ],
    [
      'GET',
      `${l}/default/leases/a`,
      'no-opinion: can only access leases in the "kube-node-lease" system namespace',
    ],
    [
      'GET',
      `${l}/kube-node-lease/leases`,
      'no-opinion: can only get, create, update, patch, or delete a node lease',
    ],
  ];
  for (const [m, p, want] of cases) assert.equal(await decide(m, p), want, `${m} ${p}`);
});

test('the static node rules decide the rest: CSRs (create/get/list/watch, as system:node), events, reviews; nothing else', async () => {
  const csr = `/apis/certificates.${D}/v1/certificatesigningrequests`;
  const cases: [string, string, string][] = [
    ['POST', csr, 'allow'],
    ['GET', `${csr}/node-csr-of-b`, 'allow'], // the reference's system:node rules read every CSR
    ['GET', csr, 'allow'],
    ['PUT', `${csr}/x/approval`, 'no-opinion'],
    ['PUT', `${csr}/x/status`, 'no-opinion'],
    ['PATCH', `${csr}/x`, 'no-opinion'],
    ['DELETE', `${csr}/x`, 'no-opinion'],
    ['POST', '/api/v1/namespaces/default/events', 'allow'],
    ['PATCH', '/api/v1/namespaces/default/events/e', 'allow'],
    ['DELETE', '/api/v1/namespaces/default/events/e', 'no-opinion'],
    ['POST', `/apis/authentication.${D}/v1/tokenreviews`, 'allow'],
    ['POST', `/apis/authorization.${D}/v1/subjectaccessreviews`, 'allow'],
    ['POST', '/api/v1/namespaces', 'no-opinion'],
    ['GET', '/api/v1/namespaces', 'no-opinion'],
    ['GET', '/healthz', 'no-opinion'],
    [
      'GET',
      '/api/v1/namespaces/default/persistentvolumeclaims/c',
      "no-opinion: no relationship found between node 'a' and this object",
    ],
    [
      'POST',
      '/api/v1/namespaces/default/serviceaccounts/sa/token',
      "no-opinion: no relationship found between node 'a' and this object",
    ],
  ];
  for (const [m, p, want] of cases) assert.equal(await decide(m, p), want, `${m} ${p}`);
});

test("fuzz: any method, path and query from a node: a decision, never a crash, never an allow for another node's Node", async () => {
  const seg = fc.constantFrom(
    'api',
    'apis',
    'v1',
    'namespaces',
    'default',
    'kube-node-lease',
    'nodes',
    'pods',
    'secrets',
    'configmaps',
    'leases',
    `coordination.${D}`,
    'status',
    'a',
    'b',
    'pa',
    'pb',
    'sa',
    'watch',
    '',
  );
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'),
      fc.array(seg, { maxLength: 8 }),
      fc.string({ maxLength: 30 }),
      async (m, parts, query) => {
        const a = attrs(m, `/${parts.join('/')}`, query);
        const d = await authz.authorize(a);
        assert.ok(['allow', 'no-opinion'].includes(d.decision));
        if (
          d.decision === 'allow' &&
          a.resource === 'nodes' &&
          a.apiGroup === '' &&
          ['get', 'list', 'watch'].includes(a.verb)
        )
          assert.equal(a.name, 'a');
      },
    ),
    fuzzParams(500),
  );
});

test("rule listing as the reference's RulesFor: a node's is incomplete (\"node authorizer does not support user rule resolution\"), anyone else's complete and empty", async () => {
  assert.deepEqual(await authz.rulesFor(nodeA), {
    resourceRules: [],
    nonResourceRules: [],
    incomplete: true,
    evaluationError: 'node authorizer does not support user rule resolution',
  });
  assert.deepEqual(await authz.rulesFor({ username: 'alice', groups: ['system:authenticated'] }), {
    resourceRules: [],
    nonResourceRules: [],
    incomplete: false,
  });
});
