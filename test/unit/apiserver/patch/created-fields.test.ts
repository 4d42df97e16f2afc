import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createdFieldsV1 } from '../../../../src/apiserver/patch/created-fields.js';
import { ignoredPaths } from '../../../../src/apiserver/patch/managed-fields.js';
import { compare, isObject } from '../../../../src/apiserver/patch/typed.js';
import { toFieldsV1 } from '../../../../src/apiserver/patch/fieldset.js';

type Obj = Record<string, unknown>;

/** The general path's answer for a create: compare with nothing, then leave out `ignored`. */
function general(kind: string, obj: Obj, subresource: string): unknown {
  const md = obj['metadata'];
  let stripped = obj;
  if (isObject(md)) {
    const copy: Obj = { ...md };
    delete copy['managedFields'];
    stripped = { ...obj, metadata: copy };
  }
  const set = compare(kind, {}, stripped).added.withoutPrefixes(ignoredPaths(kind, subresource));
  return set.empty ? undefined : toFieldsV1(set);
}

// Keys the schemas know (so keyed lists, sets, maps and atomic lists are met) and a few they
// do not. No key holds a newline: the general path joins a path's elements with one.
const KEY = fc.constantFrom(
  'metadata',
  'spec',
  'status',
  'name',
  'namespace',
  'labels',
  'annotations',
  'finalizers',
  'ownerReferences',
  'uid',
  'managedFields',
  'containers',
  'initContainers',
  'ports',
  'containerPort',
  'protocol',
  'env',
  'value',
  'volumes',
  'tolerations',
  'conditions',
  'type',
  'usages',
  'request',
  'data',
  'involvedObject',
  'message',
  'x',
  'a.b',
  '',
);

const leaf = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -3, max: 3 }),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
);

const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(KEY, tie('value'), { maxKeys: 4 }),
    // A list of objects with the usual key fields, so keyed lists match and repeat keys.
    fc.array(
      fc.record(
        {
          name: fc.constantFrom('a', 'b'),
          containerPort: fc.constantFrom(80, 443),
          protocol: fc.constantFrom('TCP', 'UDP'),
          uid: fc.constantFrom('u1', 'u2'),
          type: fc.constantFrom('Ready', 'Approved'),
          x: tie('value'),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 3 },
    ),
  ),
}));

const object = fc.dictionary(KEY, value, { maxKeys: 6 }) as fc.Arbitrary<Obj>;

test('a create owns the same fields as the general comparison, for every kind and subresource', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('Pod', 'Event', 'CertificateSigningRequest', 'ConfigMap', 'Node', 'Lease'),
      fc.constantFrom('', 'status'),
      object,
      (kind, sub, obj) => {
        assert.deepEqual(
          createdFieldsV1(kind, obj, ignoredPaths(kind, sub)),
          general(kind, obj, sub),
        );
      },
    ),
    { numRuns: 3000 },
  );
});

test('a pod create: keyed containers and ports, a label map owned itself, identity left out', () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'ns',
      uid: 'u',
      labels: { app: 'x' },
      managedFields: [{ manager: 'old' }],
    },
    spec: {
      containers: [
        { name: 'c', image: 'i', ports: [{ containerPort: 80, protocol: 'TCP' }] },
        { name: 'c', args: ['a'] },
      ],
    },
    status: { phase: 'Pending' },
  };
  assert.deepEqual(createdFieldsV1('Pod', pod, ignoredPaths('Pod', '')), {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': {
      'f:containers': {
        'k:{"name":"c"}': {
          '.': {},
          'f:args': {},
          'f:image': {},
          'f:name': {},
          'f:ports': {
            'k:{"containerPort":80,"protocol":"TCP"}': {
              '.': {},
              'f:containerPort': {},
              'f:protocol': {},
            },
          },
        },
      },
    },
  });
});

test('a create that sets only identity owns nothing', () => {
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'n' } };
  assert.equal(createdFieldsV1('ConfigMap', obj, ignoredPaths('ConfigMap', '')), undefined);
});
