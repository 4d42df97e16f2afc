// A YAML request body with a mapping key that is a sequence or a mapping: 400 BadRequest, in the
// reference's words. The reference (kube-apiserver 1.32) decodes YAML with sigs.k8s.io/yaml over
// go-yaml v2, whose decoder fails with `failf("invalid map key: %#v", k.Interface())`
// (decode.go, mapping), "yaml: " in front; sigs.k8s.io/yaml puts `error converting YAML to JSON: `
// before that, and a create wraps it (transformDecodeError). We add where the key is and what a
// key may be in place of the reference's 30-byte body summary (left out: a body may begin with a
// secret).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBody, DecodeError } from '../../../../src/apiserver/decode.js';
import { goSharpV } from '../../../../src/apiserver/go-sharp-v.js';

// go-yaml v2's words for `? [a, b]\n: c` (the key decoded into interface{} is []interface{}{"a", "b"}).
const REFERENCE_YAML_ERROR = 'yaml: invalid map key: []interface {}{"a", "b"}';
const ACCEPTED = 'a mapping key must be a string, a number within int64 or a boolean';

test('a create body with `? [a, b]` as a key: 400, the reference`s message, then line, column and what is accepted', () => {
  const body = '? [a, b]\n: c\napiVersion: v1\nkind: Pod\nmetadata: {name: ck}\n';
  assert.throws(
    () => decodeBody({ body, contentType: 'application/yaml', kind: 'Pod', apiVersion: 'v1' }),
    (e: unknown) => {
      assert.ok(e instanceof DecodeError, String(e));
      assert.equal(e.status, 400);
      assert.equal(e.reason, 'BadRequest');
      assert.equal(
        e.message,
        `the object provided is unrecognized (must be of type Pod): error converting YAML to JSON: ${REFERENCE_YAML_ERROR} (request body line 1, column 3: ${ACCEPTED})`,
      );
      assert.equal(
        e.yamlConversion,
        `error converting YAML to JSON: ${REFERENCE_YAML_ERROR} (request body line 1, column 3: ${ACCEPTED})`,
      );
      return true;
    },
  );
});

test('Go`s %#v of the decoded keys: sequences, mappings (keys sorted), strings quoted as strconv.Quote, numbers, nil', () => {
  assert.equal(goSharpV(['a', 'b']), '[]interface {}{"a", "b"}');
  assert.equal(goSharpV([1, 1.5, true, null]), '[]interface {}{1, 1.5, true, interface {}(nil)}');
  assert.equal(
    goSharpV(
      new Map<unknown, unknown>([
        ['b', 1],
        ['a', ['x']],
      ]),
    ),
    'map[interface {}]interface {}{"a":[]interface {}{"x"}, "b":1}',
  );
  assert.equal(goSharpV([]), '[]interface {}{}');
  assert.equal(goSharpV(['tab\there', 'q"']), '[]interface {}{"tab\\there", "q\\""}');
  assert.equal(
    goSharpV([0.00001, 1234567.5, Infinity]),
    '[]interface {}{1e-05, 1.2345675e+06, +Inf}',
  );
  const long = goSharpV(
    Array.from({ length: 1000 }, (_, i) => i),
    100,
  );
  assert.equal(long.length, 103, 'cut at the budget');
  assert.ok(long.endsWith('...'));
});
