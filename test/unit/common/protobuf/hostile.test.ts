// Hostile protobuf bodies: the corpus under test/fixtures/hostile-protobuf and fast-check
// mutations of valid envelopes are all answered 400 (a StatusError), never another error; and
// the mapping rules that are not visible in the goldens (omitempty, Go's zero time).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { decodeProtobufObject } from '../../../../src/apiserver/handlers/protobuf.js';
import { StatusError } from '../../../../src/apiserver/status.js';
import {
  decodeEnvelope,
  encodeEnvelope,
  PROTOBUF_MAGIC,
} from '../../../../src/common/protobuf/codec.js';
import { requiredType } from '../../../../src/common/protobuf/root.js';
import { readJson } from '../../../../src/common/protobuf/read-json.js';
import protobuf from 'protobufjs';
import { fuzzParams } from '../../../helpers/fuzz-runs.js';

const CORPUS = join(process.cwd(), 'test', 'fixtures', 'hostile-protobuf');
const PREFIX = 'the object provided is unrecognized (must be of type Pod): ';

function isBadRequest(e: unknown): boolean {
  return e instanceof StatusError && e.status === 400 && e.message.startsWith(PREFIX);
}

test('every body of the hostile corpus is a 400 naming what is wrong', () => {
  const files = readdirSync(CORPUS).filter((f) => f.endsWith('.bin'));
  assert.ok(files.length >= 15);
  for (const f of files)
    assert.throws(
      () => decodeProtobufObject(readFileSync(join(CORPUS, f)), 'Pod', 'v1'),
      isBadRequest,
      f,
    );
  assert.throws(
    () => decodeProtobufObject(readFileSync(join(CORPUS, 'wrong-magic.bin')), 'Pod', 'v1'),
    {
      message: `${PREFIX}provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]`,
    },
  );
});

const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'p',
    namespace: 'default',
    labels: { a: 'b' },
    creationTimestamp: '2026-01-01T00:00:00Z',
  },
  spec: {
    containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }] }],
    volumes: [{ name: 'v', emptyDir: {} }],
  },
};

test('fuzz: truncated, bit-flipped, spliced and random bodies decode or are a 400, nothing else', () => {
  const valid = encodeEnvelope(pod, 'v1', 'Pod');
  const mutated = fc.oneof(
    fc.nat({ max: valid.length }).map((n) => valid.subarray(0, n)),
    fc
      .array(fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })), {
        minLength: 1,
        maxLength: 8,
      })
      .map((flips) => {
        const b = Buffer.from(valid);
        for (const [i, v] of flips) b[i] = v;
        return b;
      }),
    fc
      .tuple(fc.nat({ max: valid.length }), fc.uint8Array({ maxLength: 64 }))
      .map(([i, ins]) =>
        Buffer.concat([valid.subarray(0, i), Buffer.from(ins), valid.subarray(i)]),
      ),
    fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.concat([PROTOBUF_MAGIC, Buffer.from(b)])),
  );
  fc.assert(
    fc.property(mutated, (body) => {
      try {
        decodeProtobufObject(body, 'Pod', 'v1');
      } catch (e) {
        assert.ok(isBadRequest(e), `${String(e)} for ${body.toString('hex').slice(0, 200)}`);
      }
    }),
    fuzzParams(2000),
  );
});

test('proto → JSON: empty strings of +optional fields are left out (Go omitempty), others kept; zero time is null', () => {
  const raw = requiredType('k8s.io.api.core.v1.Pod')
    .encode({
      metadata: {
        name: 'p',
        generateName: '',
        creationTimestamp: { seconds: -62135596800, nanos: 0 },
      },
      status: { containerStatuses: [{ name: 'c', imageID: '', ready: false, restartCount: 0 }] },
    })
    .finish();
  const unknown = requiredType('k8s.io.apimachinery.pkg.runtime.Unknown')
    .encode({ typeMeta: { apiVersion: 'v1', kind: 'Pod' }, raw })
    .finish();
  const o = decodeEnvelope(Buffer.concat([PROTOBUF_MAGIC, unknown])).object;
  assert.deepEqual(o, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    status: { containerStatuses: [{ name: 'c', imageID: '', ready: false, restartCount: 0 }] },
  });
});

test('JSON → proto refuses what it cannot carry: unknown fields, wrong types, out-of-range numbers, bad times and base64', () => {
  const bad: [Record<string, unknown>, RegExp][] = [
    [
      { ...pod, spec: { containers: [{ name: 'c', bogus: 1 }] } },
      /^spec\.containers\[0\]\.bogus: not a field of Container/,
    ],
    [{ ...pod, metadata: { name: 5 } }, /^metadata\.name: expected a string/],
    [
      { ...pod, spec: { containers: [{ name: 'c', ports: [{ containerPort: 2 ** 31 }] }] } },
      /outside the int32 range/,
    ],
    [{ ...pod, metadata: { creationTimestamp: 'yesterday' } }, /is not an RFC 3339 time/],
    [{ apiVersion: 'v1', kind: 'Secret', data: { a: 'not base64!' } }, /expected a base64 string/],
  ];
  for (const [obj, re] of bad)
    assert.throws(() => encodeEnvelope(obj, 'v1', String(obj['kind'])), { message: re });
});

test('wire rules of the one-pass reader: packed or unpacked lists, the last of a repeated singular field, a map entry without a value, unknown fields skipped', () => {
  const t = requiredType('k8s.io.api.core.v1.PodSecurityContext');
  const id = (name: string): number => t.fields[name]?.id ?? -1;
  const w = protobuf.Writer.create();
  // supplementalGroups (repeated int64): one packed run, then one unpacked value.
  w.uint32((id('supplementalGroups') << 3) | 2)
    .fork()
    .int64(1)
    .int64(2)
    .ldelim();
  w.uint32((id('supplementalGroups') << 3) | 0).int64(3);
  // runAsUser twice: the last one counts (as protobufjs and Go read it).
  w.uint32((id('runAsUser') << 3) | 0).int64(5);
  w.uint32((id('runAsUser') << 3) | 0).int64(7);
  // An unknown field number, length-delimited.
  w.uint32((999 << 3) | 2).bytes(Buffer.from('ignored'));
  assert.deepEqual(
    readJson(t, w.finish(), () => undefined),
    { supplementalGroups: [1, 2, 3], runAsUser: 7 },
  );
  // A labels entry with a key and no value is the empty string (a string map's zero value).
  const meta = requiredType('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  const m = protobuf.Writer.create();
  m.uint32(((meta.fields['labels']?.id ?? -1) << 3) | 2)
    .fork()
    .uint32((1 << 3) | 2)
    .string('k')
    .ldelim();
  assert.deepEqual(
    readJson(meta, m.finish(), () => undefined),
    { labels: { k: '' } },
  );
});
