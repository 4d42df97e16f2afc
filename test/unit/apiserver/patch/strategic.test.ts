import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  PatchError,
  mergePatch,
  strategicMergePatch,
} from '../../../../src/apiserver/patch/index.js';

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', finalizers: ['a', 'b'], labels: { x: '1' } },
  spec: {
    containers: [
      {
        name: 'c1',
        image: 'i1',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
        ports: [{ containerPort: 80 }],
        volumeMounts: [{ name: 'v', mountPath: '/m' }],
      },
      { name: 'c2', image: 'i2' },
    ],
    volumes: [{ name: 'v', emptyDir: {} }],
    tolerations: [{ key: 't1' }],
  },
  status: {
    conditions: [
      { type: 'Ready', status: 'False' },
      { type: 'Initialized', status: 'True' },
    ],
  },
};

const smp = (
  patch: unknown,
  kind = 'Pod',
  obj: Record<string, unknown> = pod,
): Record<string, unknown> => strategicMergePatch(kind, structuredClone(obj), patch);
type PodT = typeof pod;

test('containers merge by name; other containers untouched', () => {
  const r = smp({ spec: { containers: [{ name: 'c1', image: 'new' }] } }) as unknown as PodT;
  assert.equal(r.spec.containers.length, 2);
  assert.equal(r.spec.containers[0]?.image, 'new');
  assert.deepEqual(r.spec.containers[0]?.env, pod.spec.containers[0]?.env);
  assert.equal(r.spec.containers[1]?.image, 'i2');
});

test('a new list element goes before the live ones after it (kube-apiserver 1.32: containers c1 c3 c2 for [c1,c2] patched with [c1,c3]); env merges by name; ports by containerPort; volumeMounts by mountPath', () => {
  const r = smp({
    spec: {
      containers: [
        {
          name: 'c1',
          env: [
            { name: 'B', value: 'x' },
            { name: 'C', value: '3' },
          ],
          ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }],
          volumeMounts: [{ mountPath: '/m', readOnly: true }],
        },
        { name: 'c3', image: 'i3' },
      ],
    },
  }) as unknown as {
    spec: {
      containers: { name: string; env?: unknown; ports?: unknown; volumeMounts?: unknown }[];
    };
  };
  assert.deepEqual(
    r.spec.containers.map((c) => c.name),
    ['c1', 'c3', 'c2'],
  );
  assert.deepEqual(r.spec.containers[0]?.env, [
    { name: 'A', value: '1' },
    { name: 'B', value: 'x' },
    { name: 'C', value: '3' },
  ]);
  assert.deepEqual(r.spec.containers[0]?.ports, [
    { containerPort: 80, name: 'http' },
    { containerPort: 443 },
  ]);
  assert.deepEqual(r.spec.containers[0]?.volumeMounts, [
    { name: 'v', mountPath: '/m', readOnly: true },
  ]);
});

test('$patch: delete in a list removes by key', () => {
  const r = smp({ spec: { containers: [{ name: 'c2', $patch: 'delete' }] } }) as unknown as PodT;
  assert.deepEqual(
    r.spec.containers.map((c) => c.name),
    ['c1'],
  );
});

test('$patch: replace as a list element replaces the list', () => {
  const r = smp({
    spec: { containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] },
  }) as unknown as PodT;
  assert.deepEqual(r.spec.containers, [{ name: 'only', image: 'x' }]);
});

test('$patch: replace on a map replaces it; $patch: delete removes it', () => {
  const r = smp({ metadata: { labels: { $patch: 'replace', y: '2' } } }) as unknown as PodT;
  assert.deepEqual(r.metadata.labels, { y: '2' });
  const d = smp({ metadata: { labels: { $patch: 'delete' } } }) as unknown as {
    metadata: Record<string, unknown>;
  };
  assert.equal('labels' in d.metadata, false);
});

test('lists without a merge key are replaced (tolerations)', () => {
  const r = smp({ spec: { tolerations: [{ key: 't2' }] } }) as unknown as PodT;
  assert.deepEqual(r.spec.tolerations, [{ key: 't2' }]);
});

test('finalizers merge as a set; $deleteFromPrimitiveList removes', () => {
  const r = smp({ metadata: { finalizers: ['b', 'c'] } }) as unknown as PodT;
  assert.deepEqual(r.metadata.finalizers, ['a', 'b', 'c']);
  const d = smp({ metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }) as unknown as PodT;
  assert.deepEqual(d.metadata.finalizers, ['b']);
});

test('null deletes a field', () => {
  const r = smp({ metadata: { labels: { x: null } } }) as unknown as PodT;
  assert.deepEqual(r.metadata.labels, {});
});

test('$retainKeys keeps only the listed keys', () => {
  const r = smp({
    spec: { volumes: [{ name: 'v', hostPath: { path: '/x' }, $retainKeys: ['name', 'hostPath'] }] },
  }) as unknown as { spec: { volumes: unknown[] } };
  assert.deepEqual(r.spec.volumes, [{ name: 'v', hostPath: { path: '/x' } }]);
});

test('$setElementOrder reorders a merged list', () => {
  const r = smp({
    spec: {
      '$setElementOrder/containers': [{ name: 'c2' }, { name: 'c1' }],
      containers: [{ name: 'c1', image: 'z' }],
    },
  }) as unknown as PodT;
  assert.deepEqual(
    r.spec.containers.map((c) => c.name),
    ['c2', 'c1'],
  );
});

test('pod status conditions merge by type', () => {
  const r = smp({ status: { conditions: [{ type: 'Ready', status: 'True' }] } }) as unknown as PodT;
  assert.deepEqual(r.status.conditions, [
    { type: 'Ready', status: 'True' },
    { type: 'Initialized', status: 'True' },
  ]);
});

test('CSR status.conditions are replaced whole: the reference declares no patch strategy for them (only listType=map for apply)', () => {
  const csr = {
    kind: 'CertificateSigningRequest',
    status: { conditions: [{ type: 'Failed', status: 'True' }] },
  };
  const r = smp(
    { status: { conditions: [{ type: 'Approved', status: 'True', reason: 'R' }] } },
    'CertificateSigningRequest',
    csr,
  ) as typeof csr;
  assert.deepEqual(
    r.status.conditions.map((c) => c.type),
    ['Approved'],
  );
});

test('Node addresses and conditions merge by type; taints are replaced whole (the reference: listType=atomic, no patch strategy)', () => {
  const node = {
    kind: 'Node',
    spec: {
      taints: [
        { key: 'a', effect: 'NoSchedule' },
        { key: 'b', effect: 'NoExecute' },
      ],
    },
    status: {
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: 'n1' },
      ],
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
  const r = smp(
    {
      spec: { taints: [{ key: 'a', effect: 'NoExecute' }] },
      status: {
        addresses: [{ type: 'InternalIP', address: '10.0.0.2' }],
        conditions: [{ type: 'MemoryPressure', status: 'False' }],
      },
    },
    'Node',
    node,
  ) as typeof node;
  assert.deepEqual(r.spec.taints, [{ key: 'a', effect: 'NoExecute' }]);
  assert.deepEqual(r.status.addresses, [
    { type: 'InternalIP', address: '10.0.0.2' },
    { type: 'Hostname', address: 'n1' },
  ]);
  assert.equal(r.status.conditions.length, 2);
});

test('for kinds without merge keys it behaves as a merge patch', () => {
  const ev = {
    kind: 'Event',
    metadata: { name: 'e', labels: { a: '1' } },
    count: 1,
    related: { kind: 'Pod' },
  };
  const patch = { count: 2, metadata: { labels: { b: '2', a: null } }, related: null };
  assert.deepEqual(smp(patch, 'Event', ev), mergePatch(ev, patch));
});

const errors: [string, unknown, RegExp][] = [
  [
    'missing merge key',
    { spec: { containers: [{ image: 'x' }] } },
    /does not contain declared merge key: name/,
  ],
  ['unknown $patch', { metadata: { labels: { $patch: 'frob' } } }, /Unknown patch type: frob/],
  ['not an object', [1], /must be a JSON object/],
  ['object in a primitive set', { metadata: { finalizers: [{ a: 1 }] } }, /list of primitives/],
];
for (const [name, patch, msg] of errors) {
  test(`error: ${name}`, () => {
    assert.throws(
      () => smp(patch),
      (e: unknown) => e instanceof PatchError && e.status === 400 && msg.test(e.message),
    );
  });
}

test('the __proto__ key is data, not a prototype', () => {
  const r = smp(JSON.parse('{"metadata":{"labels":{"__proto__":"x"}}}')) as unknown as {
    metadata: { labels: Record<string, unknown> };
  };
  assert.equal(Object.getPrototypeOf(r.metadata.labels), Object.prototype);
  assert.deepEqual(Object.keys(r.metadata.labels), ['x', '__proto__']);
  const m = mergePatch({}, JSON.parse('{"__proto__":{"polluted":true}}')) as Record<
    string,
    unknown
  >;
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  assert.deepEqual(Object.keys(m), ['__proto__']);
});

test('list rules come from the schema table as the reference declares them: hostIPs merge by ip in a strategic merge patch', () => {
  const pod = { kind: 'Pod', status: { hostIPs: [{ ip: '10.0.0.1' }] } };
  const r = smp({ status: { hostIPs: [{ ip: '10.0.0.2' }] } }, 'Pod', pod) as typeof pod;
  // kube-apiserver 1.32 names the merged list in its 422: [{IP:"10.0.0.2"}, {IP:"10.0.0.1"}].
  assert.deepEqual(r.status.hostIPs, [{ ip: '10.0.0.2' }, { ip: '10.0.0.1' }]);
});

/**
 * The order of a merged list, as kube-apiserver 1.32 answered each patch (kubectl patch
 * --type=strategic): a node's status.conditions live as A B C, a ConfigMap's finalizers as x/a x/b.
 * The elements the patch names keep the patch's order, the others their live order, interleaved
 * by live position, an added element ahead of the live ones it is compared with.
 */
test('merged lists are ordered as the reference orders them (conditions by type, finalizers as a set, $setElementOrder, $patch: delete)', () => {
  const c = (type: string): { type: string; status: string } => ({ type, status: 'False' });
  const node = { kind: 'Node', status: { conditions: ['A', 'B', 'C'].map(c) } };
  const types = (patch: unknown): string =>
    (
      smp({ status: patch }, 'Node', node) as { status: { conditions: { type: string }[] } }
    ).status.conditions
      .map((x) => x.type)
      .join(' ');
  assert.equal(types({ conditions: [c('D')] }), 'D A B C');
  assert.equal(types({ conditions: [c('D'), c('A')] }), 'D A B C');
  assert.equal(types({ conditions: [c('C'), c('A')] }), 'B C A');
  assert.equal(types({ conditions: [c('B'), c('D'), c('A')] }), 'B D A C');
  assert.equal(
    types({
      '$setElementOrder/conditions': ['C', 'D', 'B', 'A'].map((type) => ({ type })),
      conditions: [c('D')],
    }),
    'C D B A',
  );
  assert.equal(types({ conditions: [{ type: 'B', $patch: 'delete' }, c('E')] }), 'E A C');
  const cm = { kind: 'ConfigMap', metadata: { name: 'm', finalizers: ['x/a', 'x/b'] } };
  const finalizers = (patch: unknown): string[] =>
    (smp({ metadata: patch }, 'ConfigMap', cm) as typeof cm).metadata.finalizers;
  assert.deepEqual(finalizers({ finalizers: ['x/c'] }), ['x/c', 'x/a', 'x/b']);
  assert.deepEqual(finalizers({ finalizers: ['x/b', 'x/c'] }), ['x/a', 'x/b', 'x/c']);
  assert.deepEqual(finalizers({ finalizers: ['x/c', 'x/a'] }), ['x/c', 'x/a', 'x/b']);
  assert.deepEqual(finalizers({ '$setElementOrder/finalizers': ['x/b', 'x/a'] }), ['x/b', 'x/a']);
});
