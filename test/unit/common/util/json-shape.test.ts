import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isOneOf,
  isRecord,
  isStringList,
  listOf,
  recordOf,
  stringRecordOf,
} from '../../../../src/common/util/json-shape.js';

test('isRecord: plain objects only (null, arrays and scalars are not)', () => {
  assert.equal(isRecord({ a: 1 }), true);
  assert.equal(isRecord(Object.create(null)), true);
  for (const v of [null, undefined, [], [1], 'x', 1, true])
    assert.equal(isRecord(v), false, String(v));
});

test('recordOf and listOf: the value when it has the shape, else a new empty one', () => {
  const o = { a: 1 };
  const l = [1, 'x'];
  assert.equal(recordOf(o), o);
  assert.deepEqual(recordOf([1]), {});
  assert.deepEqual(recordOf('x'), {});
  assert.equal(listOf(l), l);
  assert.deepEqual(listOf({ 0: 'a' }), []);
  assert.deepEqual(listOf(null), []);
  assert.notEqual(
    recordOf(null),
    recordOf(null),
    'each empty object is new, so a caller may fill it',
  );
});

test('isStringList: every element a string', () => {
  assert.equal(isStringList([]), true);
  assert.equal(isStringList(['a', 'b']), true);
  assert.equal(isStringList(['a', 1]), false);
  assert.equal(isStringList('a'), false);
});

test('stringRecordOf keeps the string entries; a "__proto__" key stays an own key', () => {
  assert.deepEqual(stringRecordOf({ a: 'x', b: 1, c: null, d: 'y' }), { a: 'x', d: 'y' });
  assert.deepEqual(stringRecordOf(['x']), {});
  const r = stringRecordOf(JSON.parse('{"__proto__":"p","k":"v"}'));
  assert.equal(Object.getPrototypeOf(r), Object.prototype);
  assert.deepEqual(Object.keys(r).sort(), ['__proto__', 'k']);
});

test('isOneOf: membership in a list of string literals', () => {
  const kinds = ['Role', 'ClusterRole'] as const;
  assert.equal(isOneOf(kinds, 'Role'), true);
  assert.equal(isOneOf(kinds, 'role'), false);
  assert.equal(isOneOf(kinds, ''), false);
});
