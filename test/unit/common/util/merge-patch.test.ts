// JSON merge patch (common/util/merge-patch.ts): the one implementation the agent's configuration
// overlay (agent/config/merge.ts) and plat-apiserver's PATCH (apiserver/patch) both use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergePatch } from '../../../../src/common/util/merge-patch.js';

// RFC 7386 appendix A
const rfc: [unknown, unknown, unknown][] = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [
    ['a', 'b'],
    ['c', 'd'],
    ['c', 'd'],
  ],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, null],
  [{ a: 'foo' }, 'bar', 'bar'],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];
rfc.forEach(([target, patch, want], i) => {
  test(`RFC 7386 example ${i + 1}`, () =>
    assert.deepEqual(mergePatch(target, patch), want, JSON.stringify([target, patch])));
});
