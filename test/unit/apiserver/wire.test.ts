// Wire formats: continue tokens, parameter sets, protobuf request bodies, Table printing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeContinue, encodeContinue } from '../../../src/apiserver/storage/continue-token.js';
import { Params, PARAM_SETS, wantsPretty } from '../../../src/apiserver/params.js';
import { decodeProtobufObject } from '../../../src/apiserver/handlers/protobuf.js';
import { humanDuration, toTable, wantsTable } from '../../../src/apiserver/handlers/table.js';
import { csrDef } from '../../../src/apiserver/registry/resources/csr.js';
import { StatusError } from '../../../src/apiserver/status.js';

test('continue tokens: unpadded base64url JSON in the reference format; bad ones are 400', () => {
  const t = encodeContinue('k8s.io', { rv: 42, start: 'ns/e1\u0000' });
  assert.ok(!t.includes('='));
  assert.deepEqual(JSON.parse(Buffer.from(t, 'base64url').toString()), { v: 'meta.k8s.io/v1', rv: 42, start: 'ns/e1\u0000' });
  assert.deepEqual(decodeContinue('k8s.io', t), { rv: 42, start: 'ns/e1\u0000' });
  for (const bad of ['!!', encodeContinue('other.io', { rv: 1, start: 'a' }), Buffer.from('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}').toString('base64url'), Buffer.from('{"v":"meta.k8s.io/v1","rv":3,"start":"../x"}').toString('base64url')]) {
    assert.throws(() => decodeContinue('k8s.io', bad), (e: unknown) => e instanceof StatusError && e.status === 400 && e.message.startsWith('invalid continue token: '));
  }
});

test('parameter sets are exactly the spec table; values outside a set are ignored; Go-style booleans', () => {
  assert.deepEqual([...PARAM_SETS.R], ['pretty']);
  assert.deepEqual([...PARAM_SETS.W].sort(), ['dryRun', 'fieldManager', 'fieldValidation', 'pretty']);
  assert.deepEqual([...PARAM_SETS.P].sort(), ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty']);
  assert.deepEqual([...PARAM_SETS.D].sort(), ['dryRun', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'orphanDependents', 'pretty', 'propagationPolicy']);
  assert.equal(PARAM_SETS.DC.size, 15);
  assert.ok(PARAM_SETS.L.has('watch') && PARAM_SETS.L.has('allowWatchBookmarks') && !PARAM_SETS.L.has('dryRun'));
  const p = new Params(new URLSearchParams('watch=1&dryRun=All&limit=5&force=false'), 'L');
  assert.equal(p.bool('watch'), true);
  assert.equal(p.has('dryRun'), false);
  assert.equal(p.int('limit'), 5);
  assert.equal(new Params(new URLSearchParams('force=false'), 'P').bool('force'), false);
  assert.throws(() => new Params(new URLSearchParams('limit=abc'), 'L').int('limit'), (e: unknown) => e instanceof StatusError && e.status === 400);
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
  const meta = Buffer.concat([field(1, 'alice'), field(11, Buffer.concat([field(1, 'k'), field(2, 'v')]))]);
  const spec = Buffer.concat([field(1, Buffer.from('PEM')), field(5, 'client auth'), field(7, 'k8s.io/x'), Buffer.from([0x40, ...varint(3600)])]);
  const csr = Buffer.concat([field(1, meta), field(2, spec), field(3, field(1, cond))]);
  const envelope = Buffer.concat([Buffer.from('k8s\u0000'), field(1, Buffer.concat([field(1, 'certificates.k8s.io/v1'), field(2, 'CertificateSigningRequest')])), field(2, csr)]);
  const o = decodeProtobufObject(envelope, 'CertificateSigningRequest', 'certificates.k8s.io/v1');
  assert.deepEqual(o, {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: 'alice', labels: { k: 'v' } },
    spec: { request: Buffer.from('PEM').toString('base64'), usages: ['client auth'], signerName: 'k8s.io/x', expirationSeconds: 3600 },
    status: { conditions: [{ type: 'Approved', reason: 'KubectlApprove', status: 'True' }] },
  });
  assert.throws(() => decodeProtobufObject(Buffer.from('nope'), 'CertificateSigningRequest', 'certificates.k8s.io/v1'), (e: unknown) => e instanceof StatusError && e.status === 400);
  // A CSR body sent to an endpoint of another kind: the reference answers 400 (not that type).
  assert.throws(() => decodeProtobufObject(envelope, 'Event', 'v1'), (e: unknown) => e instanceof StatusError && e.status === 400);
  // A kind the reference defines no protobuf message for: 415 with the media types it does take.
  assert.throws(
    () => decodeProtobufObject(envelope, 'Widget', 'example.io/v1'),
    (e: unknown) => e instanceof StatusError && e.status === 415 && e.message === 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
  );
});

test('Table printing: Accept negotiation, human durations, CSR columns', () => {
  assert.equal(wantsTable('application/json;as=Table;v=v1;g=meta.k8s.io,application/json', 'platform.io'), true);
  assert.equal(wantsTable('application/json', 'k8s.io'), false);
  assert.deepEqual([45_000, 330_000, 12 * 60_000, 200 * 60_000, 50 * 3600_000, 3 * 86_400_000].map(humanDuration), ['45s', '5m30s', '12m', '3h20m', '2d2h', '3d']);
  const now = new Date('2026-01-01T00:10:00Z');
  const t = toTable(csrDef('k8s.io'), [{ metadata: { name: 'a', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { signerName: 's/x', username: 'u', expirationSeconds: 3600 }, status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: 'Zm9v' } }], {}, 'k8s.io', now);
  assert.deepEqual((t['rows'] as { cells: unknown[] }[])[0]?.cells, ['a', '10m', 's/x', 'u', '60m', 'Approved,Issued']);
  assert.equal(t['apiVersion'], 'meta.k8s.io/v1');
});

test('Table printing: pod READY/STATUS/RESTARTS and node STATUS/ROLES/VERSION as the reference prints them', () => {
  const now = new Date('2026-01-01T01:00:00Z');
  const pod = {
    metadata: { name: 'web', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { containers: [{ name: 'a' }, { name: 'b' }], nodeName: 'n1' },
    status: { phase: 'Running', podIP: '10.0.0.5', containerStatuses: [{ ready: true, restartCount: 2, state: { running: {} } }, { ready: false, restartCount: 1, state: { waiting: { reason: 'CrashLoopBackOff' } } }] },
  };
  const pt = toTable({ ...csrDef('k8s.io'), resource: 'pods' }, [pod], {}, 'k8s.io', now);
  assert.deepEqual((pt['rows'] as { cells: unknown[] }[])[0]?.cells, ['web', '1/2', 'CrashLoopBackOff', '3', '60m', '10.0.0.5', 'n1']);
  const node = {
    metadata: { name: 'n1', creationTimestamp: '2026-01-01T00:00:00Z', labels: { 'node-role.kubernetes.io/worker': '' } },
    spec: { unschedulable: true },
    status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.32.0' }, addresses: [{ type: 'InternalIP', address: '192.168.1.2' }] },
  };
  const nt = toTable({ ...csrDef('k8s.io'), resource: 'nodes' }, [node], {}, 'k8s.io', now);
  assert.deepEqual((nt['rows'] as { cells: unknown[] }[])[0]?.cells.slice(0, 6), ['n1', 'Ready,SchedulingDisabled', 'worker', '60m', 'v1.32.0', '192.168.1.2']);
});
