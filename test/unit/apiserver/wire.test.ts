// Wire formats: continue tokens, parameter sets, protobuf request bodies, Table printing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeContinue, encodeContinue } from '../../../src/apiserver/storage/continue-token.js';
import { Params, PARAM_SETS, wantsPretty } from '../../../src/apiserver/params.js';
import { decodeProtobufObject } from '../../../src/apiserver/handlers/protobuf.js';
import { StatusError } from '../../../src/apiserver/status.js';

test('continue tokens: unpadded base64url JSON in the reference format; bad ones are 400', () => {
  const t = encodeContinue('k8s.io', { rv: 42, start: 'ns/e1\u0000' });
  assert.ok(!t.includes('='));
  assert.deepEqual(JSON.parse(Buffer.from(t, 'base64url').toString()), {
    v: 'meta.k8s.io/v1',
    rv: 42,
    start: 'ns/e1\u0000',
  });
  assert.deepEqual(decodeContinue('k8s.io', t), { rv: 42, start: 'ns/e1\u0000' });
  for (const bad of [
    '!!',
    encodeContinue('other.io', { rv: 1, start: 'a' }),
    Buffer.from('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}').toString('base64url'),
    Buffer.from('{"v":"meta.k8s.io/v1","rv":3,"start":"../x"}').toString('base64url'),
  ]) {
    assert.throws(
      () => decodeContinue('k8s.io', bad),
      (e: unknown) =>
        e instanceof StatusError &&
        e.status === 400 &&
        e.message.startsWith('invalid continue token: '),
    );
  }
});

test('parameter sets are exactly the spec table; values outside a set are ignored; Go-style booleans', () => {
  assert.deepEqual([...PARAM_SETS.R], ['pretty']);
  assert.deepEqual([...PARAM_SETS.W].sort(), [
    'dryRun',
    'fieldManager',
    'fieldValidation',
    'pretty',
  ]);
  assert.deepEqual([...PARAM_SETS.P].sort(), [
    'dryRun',
    'fieldManager',
    'fieldValidation',
    'force',
    'pretty',
  ]);
  assert.deepEqual([...PARAM_SETS.D].sort(), [
    'dryRun',
    'gracePeriodSeconds',
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'orphanDependents',
    'pretty',
    'propagationPolicy',
  ]);
  assert.equal(PARAM_SETS.DC.size, 15);
  assert.ok(
    PARAM_SETS.L.has('watch') &&
      PARAM_SETS.L.has('allowWatchBookmarks') &&
      !PARAM_SETS.L.has('dryRun'),
  );
  const p = new Params(new URLSearchParams('watch=1&dryRun=All&limit=5&force=false'), 'L');
  assert.equal(p.bool('watch'), true);
  assert.equal(p.has('dryRun'), false);
  assert.equal(p.int('limit'), 5);
  assert.equal(new Params(new URLSearchParams('force=false'), 'P').bool('force'), false);
  assert.throws(
    () => new Params(new URLSearchParams('limit=abc'), 'L').int('limit'),
    (e: unknown) => e instanceof StatusError && e.status === 400,
  );
  assert.equal(wantsPretty(new URLSearchParams(''), 'curl/8.0'), true);
  assert.equal(wantsPretty(new URLSearchParams('pretty=false'), 'curl/8.0'), false);
  assert.equal(wantsPretty(new URLSearchParams(''), 'kubectl/v1.32'), false);
});

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}
function field(no: number, payload: Buffer | string): Buffer {
  const b = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return Buffer.from([...varint((no << 3) | 2), ...varint(b.length), ...b]);
}

test('protobuf bodies: the k8s envelope around a CSR decodes to the JSON shape', () => {
  const cond = Buffer.concat([field(1, 'Approved'), field(2, 'KubectlApprove'), field(6, 'True')]);
  const meta = Buffer.concat([
    field(1, 'alice'),
    field(11, Buffer.concat([field(1, 'k'), field(2, 'v')])),
  ]);
  const spec = Buffer.concat([
    field(1, Buffer.from('PEM')),
    field(5, 'client auth'),
    field(7, 'k8s.io/x'),
    Buffer.from([0x40, ...varint(3600)]),
  ]);
  const csr = Buffer.concat([field(1, meta), field(2, spec), field(3, field(1, cond))]);
  const envelope = Buffer.concat([
    Buffer.from('k8s\u0000'),
    field(
      1,
      Buffer.concat([field(1, 'certificates.k8s.io/v1'), field(2, 'CertificateSigningRequest')]),
    ),
    field(2, csr),
  ]);
  const o = decodeProtobufObject(envelope, 'CertificateSigningRequest', 'certificates.k8s.io/v1');
  assert.deepEqual(o, {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: 'alice', labels: { k: 'v' } },
    spec: {
      request: Buffer.from('PEM').toString('base64'),
      usages: ['client auth'],
      signerName: 'k8s.io/x',
      expirationSeconds: 3600,
    },
    status: { conditions: [{ type: 'Approved', reason: 'KubectlApprove', status: 'True' }] },
  });
  assert.throws(
    () =>
      decodeProtobufObject(
        Buffer.from('nope'),
        'CertificateSigningRequest',
        'certificates.k8s.io/v1',
      ),
    (e: unknown) => e instanceof StatusError && e.status === 400,
  );
  // A CSR body sent to an endpoint of another kind: the reference answers 400 (not that type).
  assert.throws(
    () => decodeProtobufObject(envelope, 'Event', 'v1'),
    (e: unknown) => e instanceof StatusError && e.status === 400,
  );
  // A kind the reference defines no protobuf message for: 415 with the media types it does take.
  assert.throws(
    () => decodeProtobufObject(envelope, 'Widget', 'example.io/v1'),
    (e: unknown) =>
      e instanceof StatusError &&
      e.status === 415 &&
      e.message ===
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
  );
});
