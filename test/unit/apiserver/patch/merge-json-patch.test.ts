import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  PatchError,
  applyJsonPatch,
  createMergePatch,
  mergePatch,
} from '../../../../src/apiserver/patch/index.js';

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const noNullObject = fc.dictionary(
  fc.string({ maxLength: 3 }),
  fc.oneof(
    fc.integer(),
    fc.string(),
    fc.dictionary(fc.string({ maxLength: 2 }), fc.integer(), { noNullPrototype: true }),
  ),
  { noNullPrototype: true },
);

test('property: merge patch is idempotent', () => {
  fc.assert(
    fc.property(jsonValue, jsonValue, (t, p) => {
      const once = mergePatch(t, p);
      assert.deepEqual(mergePatch(once, p), once);
    }),
  );
});

test('property: createMergePatch(a, b) applied to a gives b (objects without nulls)', () => {
  fc.assert(
    fc.property(noNullObject, noNullObject, (a, b) => {
      assert.deepEqual(mergePatch(a, createMergePatch(a, b)), b);
    }),
  );
});

test('property: merge patch does not modify its inputs', () => {
  fc.assert(
    fc.property(jsonValue, jsonValue, (t, p) => {
      const t0 = structuredClone(t);
      const p0 = structuredClone(p);
      mergePatch(t, p);
      assert.deepEqual(t, t0);
      assert.deepEqual(p, p0);
    }),
  );
});

const doc = { metadata: { name: 'a', labels: { x: '1' } }, spec: { list: [1, 2, 3] } };
const okOps: [string, unknown[], unknown][] = [
  ['add', [{ op: 'add', path: '/metadata/labels/y', value: '2' }], { x: '1', y: '2' }],
  ['remove', [{ op: 'remove', path: '/metadata/labels/x' }], {}],
  ['replace', [{ op: 'replace', path: '/metadata/labels/x', value: '9' }], { x: '9' }],
  [
    'copy',
    [{ op: 'copy', from: '/metadata/labels/x', path: '/metadata/labels/z' }],
    { x: '1', z: '1' },
  ],
  ['move', [{ op: 'move', from: '/metadata/labels/x', path: '/metadata/labels/w' }], { w: '1' }],
  [
    'test then add',
    [
      { op: 'test', path: '/metadata/labels/x', value: '1' },
      { op: 'add', path: '/metadata/labels/t', value: 't' },
    ],
    { x: '1', t: 't' },
  ],
  [
    'escaped key',
    [{ op: 'add', path: '/metadata/labels/example.com~1key', value: 'v' }],
    { x: '1', 'example.com/key': 'v' },
  ],
];
for (const [name, ops, labels] of okOps) {
  test(`json patch ${name}`, () => {
    const out = applyJsonPatch(structuredClone(doc), JSON.stringify(ops)) as typeof doc;
    assert.deepEqual(out.metadata.labels, labels);
  });
}

test('json patch append to list and leaves the input alone', () => {
  const d = structuredClone(doc);
  const out = applyJsonPatch(d, '[{"op":"add","path":"/spec/list/-","value":4}]') as typeof doc;
  assert.deepEqual(out.spec.list, [1, 2, 3, 4]);
  assert.deepEqual(d, doc);
});

const errs: [string, string, number, RegExp][] = [
  [
    'test fails',
    '[{"op":"test","path":"/metadata/labels/x","value":"2"}]',
    422,
    /^testing value \/metadata\/labels\/x failed: test failed$/,
  ],
  [
    'remove missing',
    '[{"op":"remove","path":"/metadata/labels/nope"}]',
    422,
    /unable to remove nonexistent key: \/metadata\/labels\/nope: missing value/,
  ],
  [
    'replace missing',
    '[{"op":"replace","path":"/spec/nope","value":1}]',
    422,
    /replace operation does not apply: doc is missing key: \/spec\/nope/,
  ],
  [
    'add under missing parent',
    '[{"op":"add","path":"/a/b/c","value":1}]',
    422,
    /add operation does not apply: doc is missing path: "\/a\/b\/c": missing value/,
  ],
  ['bad op', '[{"op":"frobnicate","path":"/a"}]', 422, /Unexpected kind: frobnicate/],
  [
    'index out of bounds',
    '[{"op":"add","path":"/spec/list/10","value":1}]',
    422,
    /index out of bounds/,
  ],
  ['not JSON', '[{', 400, /invalid JSON patch/],
  [
    'not an array',
    '{"op":"add"}',
    400,
    /cannot unmarshal object into Go value of type jsonpatch.Patch/,
  ],
  ['non-object op', '[1]', 400, /each operation must be an object/],
];
for (const [name, body, status, msg] of errs) {
  test(`json patch error: ${name}`, () => {
    assert.throws(
      () => applyJsonPatch(structuredClone(doc), body),
      (e: unknown) => {
        assert.ok(e instanceof PatchError, String(e));
        assert.equal(e.status, status);
        assert.match(e.message, msg);
        return true;
      },
    );
  });
}

test('json patch: more than 10000 operations is 413', () => {
  const ops = Array.from({ length: 10001 }, () => ({
    op: 'test',
    path: '/metadata/name',
    value: 'a',
  }));
  assert.throws(
    () => applyJsonPatch(structuredClone(doc), JSON.stringify(ops)),
    (e: unknown) =>
      e instanceof PatchError &&
      e.status === 413 &&
      e.message === 'The allowed maximum operations in a JSON patch is 10000, got 10001',
  );
});
