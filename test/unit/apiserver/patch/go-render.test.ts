// The reference's text of a patched object that does not decode: encoding/json's strings and key
// order as the patch library leaves them, and Go's %v of a decoded patch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  goJsonString,
  goPatchedJson,
  goPrintDecoded,
  jsonPatchTouched,
  mergePatchTouched,
} from '../../../../src/apiserver/patch/go-render.js';

test("encoding/json's string: HTML characters, U+2028/U+2029 and control characters escaped", () => {
  assert.equal(goJsonString('<a&b>'), '"\\u003ca\\u0026b\\u003e"');
  assert.equal(goJsonString('\u2028\u2029'), '"\\u2028\\u2029"');
  assert.equal(goJsonString('\b\f\n\r\t\x01"\\'), '"\\b\\f\\n\\r\\t\\u0001\\"\\\\"');
  assert.equal(goJsonString('é✓'), '"é✓"');
});

test('a merge patch sorts what it went into and what it put; the rest keeps its order', () => {
  const live = {
    kind: 'K',
    apiVersion: 'v1',
    metadata: { uid: 'u', name: 'n', resourceVersion: '1' },
    spec: { z: 1, a: { y: 1, b: 2 } },
    data: { q: 1, c: 2 },
  };
  const patch = { spec: { a: { c: 3 } }, extra: { z: 1, a: 2 } };
  const result = {
    ...live,
    spec: { z: 1, a: { y: 1, b: 2, c: 3 } },
    extra: { z: 1, a: 2 },
  };
  assert.equal(
    goPatchedJson(result, mergePatchTouched(live, patch)),
    '{"apiVersion":"v1","data":{"q":1,"c":2},"extra":{"a":2,"z":1},"kind":"K",' +
      '"metadata":{"name":"n","uid":"u","resourceVersion":"1"},"spec":{"a":{"b":2,"c":3,"y":1},"z":1}}',
  );
});

test("a JSON patch sorts the containers on its operations' paths; values it puts stay as written", () => {
  const result = { b: { y: { q: 1, p: 2 }, x: 1 }, a: { d: 1, c: 2 } };
  const touched = jsonPatchTouched([{ op: 'add', path: '/b/y', value: { q: 1, p: 2 } }]);
  assert.equal(goPatchedJson(result, touched), '{"a":{"d":1,"c":2},"b":{"x":1,"y":{"q":1,"p":2}}}');
});

test("Go's %v of a decoded patch: maps with sorted keys, slices with spaces, nil, numbers", () => {
  assert.equal(
    goPrintDecoded({ b: [1, 'a', true, null], a: { d: 1.5, c: {} }, e: 1.5e-7 }),
    'map[a:map[c:map[] d:1.5] b:[1 a true <nil>] e:1.5e-07]',
  );
});
