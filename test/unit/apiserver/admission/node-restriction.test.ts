// NodeRestriction against the reference's (plugin/pkg/admission/noderestriction): node A may touch
// only its own Node (labels within the allowed set, never its taints), its own Lease, and pods
// bound to it. The messages are the reference's, written out here.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { test } from 'node:test';
import { NodeRestriction } from '../../../../src/apiserver/admission/node-restriction.js';
import { nodeLabelPolicy } from '../../../../src/apiserver/admission/node-labels.js';
import type { NodeObjects } from '../../../../src/apiserver/authz/node/objects.js';
import type { AdmissionRequest } from '../../../../src/apiserver/interfaces.js';
import { ApiError } from '../../../../src/common/util/errors.js';
import { namesFor } from '../../../../src/common/names.js';
import { fuzzParams } from '../../../helpers/fuzz-runs.js';

const D = 'platform.io';
const objects: NodeObjects = {
  getPod: () => Promise.resolve(undefined),
  podsBoundTo: () => Promise.resolve([]),
  getNode: (name) =>
    Promise.resolve(name === 'a' ? { metadata: { name: 'a', uid: 'uid-a' } } : undefined),
};
const plugin = new NodeRestriction({
  names: namesFor('platform', D),
  nodeLeaseNamespace: 'kube-node-lease',
  objects,
});
const nodeA = { username: 'system:node:a', groups: ['system:nodes', 'system:authenticated'] };

function req(over: Partial<AdmissionRequest>): AdmissionRequest {
  return {
    operation: 'CREATE',
    resource: 'nodes',
    apiGroup: '',
    subresource: '',
    namespace: '',
    name: 'a',
    object: {},
    oldObject: undefined,
    user: nodeA,
    dryRun: false,
    ...over,
  };
}

async function outcome(r: AdmissionRequest): Promise<string> {
  try {
    await plugin.admit(r);
    return 'admitted';
  } catch (err) {
    if (err instanceof ApiError) return `${err.status} ${err.message}`;
    throw err;
  }
}

const node = (labels: Record<string, string>, taints?: unknown[]): Record<string, unknown> => ({
  metadata: { name: 'a', labels },
  spec: taints === undefined ? {} : { taints },
});

test('others than nodes are not its business', async () => {
  assert.equal(
    await outcome(req({ user: { username: 'alice', groups: [] }, name: 'b' })),
    'admitted',
  );
  assert.equal(
    await outcome(req({ user: { username: 'system:node:', groups: ['system:nodes'] } })),
    '403 nodes "a" is forbidden: could not determine node from user "system:node:"',
  );
});

test('nodes: only its own; labels within the allowed set on create and update; never its taints', async () => {
  assert.equal(
    await outcome(req({ name: 'b', object: { metadata: { name: 'b' } } })),
    '403 nodes "b" is forbidden: node "a" is not allowed to modify node "b"',
  );
  assert.equal(
    await outcome(req({ operation: 'UPDATE', name: 'b', object: node({}), oldObject: node({}) })),
    '403 nodes "b" is forbidden: node "a" is not allowed to modify node "b"',
  );
  assert.equal(
    await outcome(
      req({
        operation: 'UPDATE',
        subresource: 'status',
        name: 'b',
        object: node({}),
        oldObject: node({}),
      }),
    ),
    '403 nodes "b" is forbidden: node "a" is not allowed to modify node "b"',
  );
  const allowed = {
    [`${D}/hostname`]: 'a',
    [`${D}/os`]: 'linux',
    [`${D}/arch`]: 'amd64',
    [`beta.${D}/os`]: 'linux',
    [`beta.${D}/arch`]: 'amd64',
    [`topology.${D}/zone`]: 'z',
    [`node.${D}/instance-type`]: 't',
    [`platlet.${D}/x`]: '1',
    [`sub.node.${D}/y`]: '1',
    'example.com/free': 'x',
    plain: 'x',
  };
  assert.equal(await outcome(req({ object: node(allowed) })), 'admitted');
  assert.equal(
    await outcome(
      req({
        object: node({
          ...allowed,
          [`node-role.${D}/control-plane`]: '',
          [`node-restriction.${D}/pool`]: 'x',
          [`${D}/made-up`]: 'x',
        }),
      }),
    ),
    `403 nodes "a" is forbidden: node "a" is not allowed to set the following labels: node-restriction.${D}/pool, node-role.${D}/control-plane, ${D}/made-up`,
  );
  assert.equal(
    await outcome(
      req({ object: { metadata: { name: 'a' }, spec: { configSource: { configMap: {} } } } }),
    ),
    '403 nodes "a" is forbidden: node "a" is not allowed to create pods with a non-nil configSource',
  );
  // update: the reference's message names no node
  assert.equal(
    await outcome(
      req({
        operation: 'UPDATE',
        object: node({ [`node-role.${D}/master`]: '' }),
        oldObject: node({}),
      }),
    ),
    `403 nodes "a" is forbidden: is not allowed to modify labels: node-role.${D}/master`,
  );
  assert.equal(
    await outcome(
      req({
        operation: 'UPDATE',
        object: node({}),
        oldObject: node({ [`node-restriction.${D}/x`]: 'y' }),
      }),
    ),
    `403 nodes "a" is forbidden: is not allowed to modify labels: node-restriction.${D}/x`,
  );
  assert.equal(
    await outcome(
      req({ operation: 'UPDATE', object: node({ [`node.${D}/pool`]: 'b' }), oldObject: node({}) }),
    ),
    'admitted',
  );
  // an unchanged forbidden label (set by an admin) does not block the node's own updates
  assert.equal(
    await outcome(
      req({
        operation: 'UPDATE',
        object: node({ [`node-role.${D}/m`]: '', [`${D}/hostname`]: 'a' }),
        oldObject: node({ [`node-role.${D}/m`]: '' }),
      }),
    ),
    'admitted',
  );
  const taint = { key: `node.${D}/unreachable`, effect: 'NoSchedule' };
  assert.equal(
    await outcome(req({ operation: 'UPDATE', object: node({}, []), oldObject: node({}, [taint]) })),
    '403 nodes "a" is forbidden: node "a" is not allowed to modify taints',
  );
  assert.equal(
    await outcome(req({ operation: 'UPDATE', object: node({}, [taint]), oldObject: node({}) })),
    '403 nodes "a" is forbidden: node "a" is not allowed to modify taints',
  );
  assert.equal(
    await outcome(req({ operation: 'UPDATE', object: node({}, []), oldObject: node({}) })),
    'admitted',
    'empty and absent taints are the same',
  );
});

const pod = (
  nodeName: string,
  meta: Record<string, unknown> = {},
  spec: Record<string, unknown> = {},
): Record<string, unknown> => ({
  metadata: { name: 'p', namespace: 'default', ...meta },
  spec: { nodeName, containers: [{ name: 'c', image: 'i' }], ...spec },
});
const mirror = {
  annotations: { [`${D}/config.mirror`]: 'h' },
  ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'a', uid: 'uid-a', controller: true }],
};

test('pods: mirror pods of its own only, deletes and status of pods bound to it', async () => {
  const p = (over: Partial<AdmissionRequest>): AdmissionRequest =>
    req({ resource: 'pods', namespace: 'default', name: 'p', ...over });
  assert.equal(await outcome(p({ object: pod('a', mirror) })), 'admitted');
  assert.equal(
    await outcome(p({ object: pod('a') })),
    `403 pods "p" is forbidden: pod does not have "${D}/config.mirror" annotation, node "a" can only create mirror pods`,
  );
  assert.equal(
    await outcome(p({ object: pod('b', mirror) })),
    '403 pods "p" is forbidden: node "a" can only create pods with spec.nodeName set to itself',
  );
  assert.equal(
    await outcome(p({ object: pod('a', { ...mirror, ownerReferences: [] }) })),
    '403 pods "p" is forbidden: node "a" can only create pods with an owner reference set to itself',
  );
  const owner = mirror.ownerReferences[0];
  assert.equal(
    await outcome(
      p({ object: pod('a', { ...mirror, ownerReferences: [{ ...owner, name: 'b' }] }) }),
    ),
    '403 pods "p" is forbidden: node "a" can only create pods with an owner reference set to itself',
  );
  assert.equal(
    await outcome(
      p({ object: pod('a', { ...mirror, ownerReferences: [{ ...owner, controller: false }] }) }),
    ),
    '403 pods "p" is forbidden: node "a" can only create pods with a controller owner reference set to itself',
  );
  assert.equal(
    await outcome(
      p({
        object: pod('a', { ...mirror, ownerReferences: [{ ...owner, blockOwnerDeletion: true }] }),
      }),
    ),
    '403 pods "p" is forbidden: node "a" must not set blockOwnerDeletion on an owner reference',
  );
  assert.equal(
    await outcome(
      p({ object: pod('a', { ...mirror, ownerReferences: [{ ...owner, uid: 'other' }] }) }),
    ),
    '403 pods "p" is forbidden: node a UID mismatch: expected other got uid-a',
  );
  assert.equal(
    await outcome(
      p({ object: pod('a', mirror, { volumes: [{ name: 'v', secret: { secretName: 's' } }] }) }),
    ),
    '403 pods "p" is forbidden: node "a" can not create pods that reference secrets',
  );
  assert.equal(
    await outcome(
      p({ object: pod('a', mirror, { volumes: [{ name: 'v', configMap: { name: 'c' } }] }) }),
    ),
    '403 pods "p" is forbidden: node "a" can not create pods that reference configmaps',
  );
  assert.equal(
    await outcome(p({ object: pod('a', mirror, { serviceAccountName: 'sa' }) })),
    '403 pods "p" is forbidden: node "a" can not create pods that reference a service account',
  );
  assert.equal(
    await outcome(
      p({
        object: pod('a', mirror, {
          volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }],
        }),
      }),
    ),
    '403 pods "p" is forbidden: node "a" can not create pods that reference persistentvolumeclaims',
  );
  assert.equal(
    await outcome(p({ operation: 'DELETE', object: undefined, oldObject: pod('a') })),
    'admitted',
  );
  assert.equal(
    await outcome(p({ operation: 'DELETE', object: undefined, oldObject: pod('b') })),
    '403 pods "p" is forbidden: node "a" can only delete pods with spec.nodeName set to itself',
  );
  assert.equal(
    await outcome(p({ operation: 'UPDATE', object: pod('a'), oldObject: pod('a') })),
    '403 pods "p" is forbidden: unexpected operation "UPDATE", node "a" can only create and delete mirror pods',
  );
  assert.equal(
    await outcome(
      p({ operation: 'UPDATE', subresource: 'status', object: pod('a'), oldObject: pod('a') }),
    ),
    'admitted',
  );
  assert.equal(
    await outcome(
      p({ operation: 'UPDATE', subresource: 'status', object: pod('b'), oldObject: pod('b') }),
    ),
    '403 pods "p" is forbidden: node "a" can only update pod status for pods with spec.nodeName set to itself',
  );
  assert.equal(
    await outcome(
      p({
        operation: 'UPDATE',
        subresource: 'status',
        object: pod('a', { labels: { x: 'y' } }),
        oldObject: pod('a'),
      }),
    ),
    '403 pods "p" is forbidden: node "a" cannot update labels through pod status',
  );
  assert.equal(
    await outcome(
      p({ operation: 'UPDATE', subresource: 'binding', object: pod('a'), oldObject: pod('a') }),
    ),
    `403 pods "p" is forbidden: unexpected pod subresource "binding", only 'status' and 'eviction' are allowed`,
  );
});

test('leases: its own, in the node-lease namespace', async () => {
  const l = (over: Partial<AdmissionRequest>): AdmissionRequest =>
    req({
      resource: 'leases',
      apiGroup: `coordination.${D}`,
      namespace: 'kube-node-lease',
      ...over,
    });
  assert.equal(await outcome(l({ name: '', object: { metadata: { name: 'a' } } })), 'admitted');
  assert.equal(
    await outcome(l({ name: '', object: { metadata: { name: 'b' } } })),
    `403 leases.coordination.${D} "b" is forbidden: can only access node lease with the same name as the requesting node`,
  );
  assert.equal(
    await outcome(l({ operation: 'UPDATE', name: 'b', object: {}, oldObject: {} })),
    `403 leases.coordination.${D} "b" is forbidden: can only access node lease with the same name as the requesting node`,
  );
  assert.equal(
    await outcome(
      l({ operation: 'UPDATE', name: 'a', namespace: 'default', object: {}, oldObject: {} }),
    ),
    `403 leases.coordination.${D} "a" is forbidden: can only access leases in the "kube-node-lease" system namespace`,
  );
});

test('the label policy under another domain (k8s.io): the refusal a real cluster gives, in its order', () => {
  // the reference's own names: kubernetes.io labels with kubelet.kubernetes.io/, k8s.io reserved
  // too
  const reference = nodeLabelPolicy('kubernetes.io', {
    agentWord: 'kubelet',
    alsoReserved: ['k8s.io'],
  });
  const refused = reference.forbidden([
    'k8s.io/hostname',
    'k8s.io/os',
    'k8s.io/arch',
    'beta.k8s.io/os',
    'beta.k8s.io/arch',
  ]);
  assert.equal(
    `node "x" is not allowed to set the following labels: ${refused.join(', ')}`,
    'node "x" is not allowed to set the following labels: beta.k8s.io/arch, beta.k8s.io/os, k8s.io/arch, k8s.io/hostname, k8s.io/os',
  );
  assert.deepEqual(
    reference.forbidden([
      'kubernetes.io/hostname',
      'beta.kubernetes.io/os',
      'kubelet.kubernetes.io/x',
      'node.kubernetes.io/y',
      'node-role.kubernetes.io/worker',
      'node-restriction.kubernetes.io/z',
      'platlet.kubernetes.io/q',
    ]),
    [
      'node-restriction.kubernetes.io/z',
      'node-role.kubernetes.io/worker',
      'platlet.kubernetes.io/q',
    ],
  );
  const p = nodeLabelPolicy('k8s.io');
  assert.deepEqual(
    p.forbidden([
      'k8s.io/hostname',
      'beta.k8s.io/arch',
      'node-role.k8s.io/x',
      'platlet.k8s.io/y',
      'foo.k8s.io/z',
      'other.io/a',
    ]),
    ['foo.k8s.io/z', 'node-role.k8s.io/x'],
  );
});

test("the kubernetes profile: the reference's mirror annotation (kubernetes.io/config.mirror) and label domains", async () => {
  const k8s = new NodeRestriction({
    names: namesFor('kubernetes'),
    nodeLeaseNamespace: 'kube-node-lease',
    objects,
  });
  const admit = async (r: AdmissionRequest): Promise<string> => {
    try {
      await k8s.admit(r);
      return 'admitted';
    } catch (err) {
      if (err instanceof ApiError) return `${err.status} ${err.message}`;
      throw err;
    }
  };
  const mirror = (annotation: string): Record<string, unknown> => ({
    metadata: {
      name: 'm',
      annotations: { [annotation]: 'h' },
      ownerReferences: [
        { apiVersion: 'v1', kind: 'Node', name: 'a', uid: 'uid-a', controller: true },
      ],
    },
    spec: { nodeName: 'a', containers: [{ name: 'c', image: 'i' }] },
  });
  const pod = (o: Record<string, unknown>): AdmissionRequest =>
    req({ resource: 'pods', namespace: 'default', name: 'm', object: o });
  assert.equal(await admit(pod(mirror('kubernetes.io/config.mirror'))), 'admitted');
  assert.equal(
    await admit(pod(mirror('k8s.io/config.mirror'))),
    '403 pods "m" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "a" can only create mirror pods',
  );
  const labels = {
    'kubernetes.io/hostname': 'a',
    'kubelet.kubernetes.io/x': '1',
    'node.kubernetes.io/y': '1',
  };
  assert.equal(await admit(req({ object: node(labels) })), 'admitted');
  assert.equal(
    await admit(
      req({
        object: node({
          ...labels,
          'node-role.kubernetes.io/worker': '',
          'k8s.io/made-up': 'x',
          'platlet.kubernetes.io/q': '1',
        }),
      }),
    ),
    '403 nodes "a" is forbidden: node "a" is not allowed to set the following labels: k8s.io/made-up, node-role.kubernetes.io/worker, platlet.kubernetes.io/q',
  );
});

test('fuzz: any object, old object, names and subresource from a node: admitted or a 403/404 ApiError, never a crash', async () => {
  const anyObj = fc
    .object({ maxDepth: 4, values: [fc.string(), fc.integer(), fc.boolean(), fc.constant(null)] })
    .map((o) => o as Record<string, unknown>);
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('pods', 'nodes', 'leases', 'secrets'),
      fc.constantFrom('', 'status', 'eviction', 'x'),
      fc.constantFrom<AdmissionRequest['operation']>('CREATE', 'UPDATE', 'DELETE', 'CONNECT'),
      fc.option(anyObj, { nil: undefined }),
      fc.option(anyObj, { nil: undefined }),
      fc.string({ maxLength: 10 }),
      async (resource, subresource, operation, object, oldObject, name) => {
        const r = req({
          resource,
          subresource,
          operation,
          object,
          oldObject,
          name,
          apiGroup: resource === 'leases' ? `coordination.${D}` : '',
          namespace: 'kube-node-lease',
        });
        try {
          await plugin.admit(r);
        } catch (err) {
          assert.ok(
            err instanceof ApiError && (err.status === 403 || err.status === 404),
            String(err),
          );
        }
      },
    ),
    fuzzParams(200),
  );
});
