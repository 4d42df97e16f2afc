// The readers generated from the reference's message definitions (reader-codegen.ts): an error
// names the field path it was read in; a string running past the end is malformed (not cut
// short); a repeated FieldsV1 text decodes to a fresh value each time (decoded objects are the
// caller's to change); short, non-ASCII and long strings read alike.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import {
  decodeEnvelope,
  encodeEnvelope,
  encodeMessage,
} from '../../../../src/common/protobuf/codec.js';
import { requiredType } from '../../../../src/common/protobuf/root.js';
import { readJson } from '../../../../src/common/protobuf/read-json.js';

const noRaw = (): undefined => undefined;

test('an error names the field path: a list item, then the field inside it', () => {
  const meta = requiredType('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  const entry = requiredType('k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry');
  const time = requiredType('k8s.io.apimachinery.pkg.apis.meta.v1.Time');
  const w = protobuf.Writer.create();
  const ok = entry.encode({ manager: 'a' }).finish();
  const bad = protobuf.Writer.create();
  bad
    .uint32(((entry.fields['time']?.id ?? -1) << 3) | 2)
    .bytes(time.encode({ seconds: 2 ** 40, nanos: 0 }).finish());
  const id = meta.fields['managedFields']?.id ?? -1;
  w.uint32((id << 3) | 2).bytes(ok);
  w.uint32((id << 3) | 2).bytes(bad.finish());
  assert.throws(() => readJson(meta, w.finish(), noRaw), {
    message:
      /^managedFields\[1\]\.time: the time: 1099511627776 seconds is outside the years 1 to 9999$/,
  });
});

test('a string whose length runs past the end of the body is malformed, not cut short', () => {
  const meta = requiredType('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  const w = protobuf.Writer.create();
  w.uint32(((meta.fields['name']?.id ?? -1) << 3) | 2).uint32(20);
  const body = Buffer.concat([w.finish(), Buffer.from('short')]);
  assert.throws(() => readJson(meta, body, noRaw), {
    message: /^name: index out of range: 2 \+ 20 > 7$/,
  });
});

test('the same fieldsV1 text in two objects decodes to two values (changing one leaves the other)', () => {
  const obj = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'c',
      managedFields: [
        {
          manager: 'm',
          operation: 'Update',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { 'f:a': {} } },
        },
      ],
    },
    data: { a: 'b' },
  };
  const bytes = encodeEnvelope(obj, 'v1', 'ConfigMap');
  const first = decodeEnvelope(bytes).object as {
    metadata: { managedFields: { fieldsV1: Record<string, unknown> }[] };
  };
  first.metadata.managedFields[0]!.fieldsV1['f:data'] = 'changed';
  assert.deepEqual(decodeEnvelope(bytes).object, obj);
});

test('strings: empty, short ASCII, short and long UTF-8, long ASCII read as written', () => {
  for (const value of [
    'x',
    'twelve chars',
    'thirteen char',
    'é',
    'ünïcödé ☃',
    'a'.repeat(300),
    `${'b'.repeat(12)}\u{1F600}`,
  ]) {
    const obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { k: value },
    };
    assert.deepEqual(
      readJson(
        requiredType('k8s.io.api.core.v1.ConfigMap'),
        encodeMessage(obj, 'v1', 'ConfigMap'),
        noRaw,
      ),
      { metadata: { name: 'c' }, data: { k: value } },
    );
  }
});
