// resourceVersion as the reference's storage parses it (strconv.ParseUint(rv, 10, 64)), with its
// 400 text: `invalid resource version: resourceVersion: Invalid value: "x": strconv.ParseUint:
// parsing "x": invalid syntax` (k8s.io/apiserver etcd3 store, ValidateListOptions).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseResourceVersion } from '../../../src/apiserver/registry/resource-version.js';
import { StatusError } from '../../../src/apiserver/status.js';

test('valid resourceVersions: "" and "0" are 0, decimals up to 2^64-1 parse, leading zeros too', () => {
  assert.equal(parseResourceVersion(''), 0);
  assert.equal(parseResourceVersion('0'), 0);
  assert.equal(parseResourceVersion('42'), 42);
  assert.equal(parseResourceVersion('007'), 7);
  assert.equal(parseResourceVersion('18446744073709551615'), Number('18446744073709551615'));
});

for (const [rv, why] of [
  ['12345678901234567890123', 'value out of range'],
  ['18446744073709551616', 'value out of range'],
  ['-1', 'invalid syntax'],
  ['+5', 'invalid syntax'],
  ['abc', 'invalid syntax'],
  [' 5', 'invalid syntax'],
  ['1e3', 'invalid syntax'],
  ['0x10', 'invalid syntax'],
] as const) {
  test(`resourceVersion ${JSON.stringify(rv)} is a 400: ${why}`, () => {
    assert.throws(
      () => parseResourceVersion(rv),
      (e: unknown) => {
        assert.ok(e instanceof StatusError);
        assert.equal(e.status, 400);
        assert.equal(e.reason, 'BadRequest');
        assert.equal(
          e.message,
          `invalid resource version: resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`,
        );
        return true;
      },
    );
  });
}

test('the field named is where the value came from', () => {
  assert.throws(
    () => parseResourceVersion('x', 'metadata.resourceVersion'),
    /^.*invalid resource version: metadata\.resourceVersion: Invalid value: "x": strconv\.ParseUint: parsing "x": invalid syntax$/,
  );
});
