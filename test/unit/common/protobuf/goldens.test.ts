// JSON ↔ protobuf round trips of every kind plat-apiserver serves, against golden bytes produced by
// an independent encoder: protoc (Debian's protobuf-compiler) encoding the hand-written text-format
// messages under test/fixtures/protobuf/ with the reference's published .proto files
// (scripts/gen-proto-goldens.sh). They are what proves the generated descriptor right on the wire
// when the .proto files themselves are not at hand. Each case checks: our JSON → message bytes
// equal protoc's; the `k8s\0` envelope equals the reference's layout; golden bytes → JSON equal the
// fixture.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  decodeEnvelope,
  decodeWatchEvent,
  encodeEnvelope,
  encodeListEnvelope,
  encodeMessage,
  encodeWatchFrame,
  encodeWatchFrameOf,
} from '../../../../src/common/protobuf/codec.js';

const DIR = join(process.cwd(), 'test', 'fixtures', 'protobuf');

interface Case {
  readonly name: string;
  readonly message: string;
  readonly object: Record<string, unknown>;
  readonly apiVersion: string;
  readonly kind: string;
}

function cases(): Case[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => {
      const c = JSON.parse(readFileSync(join(DIR, f), 'utf8')) as {
        message: string;
        object: Record<string, unknown>;
      };
      return {
        name: f.slice(0, -5),
        message: c.message,
        object: c.object,
        apiVersion: String(c.object['apiVersion']),
        kind: String(c.object['kind']),
      };
    });
}

const golden = (name: string): Buffer => readFileSync(join(DIR, name));

test('the golden cases cover every kind plat-apiserver serves (and events.k8s.io/v1 Event)', () => {
  const covered = new Set(cases().map((c) => c.message.split('.').slice(-1)[0]));
  for (const kind of [
    'Pod',
    'PodList',
    'Node',
    'Namespace',
    'Event',
    'Lease',
    'Secret',
    'ConfigMap',
    'CertificateSigningRequest',
    'Role',
    'ClusterRole',
    'RoleBinding',
    'ClusterRoleBinding',
    'TokenReview',
    'SubjectAccessReview',
    'SelfSubjectAccessReview',
    'SelfSubjectRulesReview',
    'SelfSubjectReview',
    'Status',
    'DeleteOptions',
  ])
    assert.ok(covered.has(kind), `no golden case for ${kind}`);
  assert.ok(cases().some((c) => c.message === 'k8s.io.api.events.v1.Event'));
});

for (const c of cases()) {
  test(`${c.name}: JSON → protobuf equals protoc's bytes; the envelope is the reference's layout`, () => {
    assert.deepEqual(
      Buffer.from(encodeMessage(c.object, c.apiVersion, c.kind)).toString('hex'),
      golden(`${c.name}.bin`).toString('hex'),
    );
    assert.deepEqual(
      encodeEnvelope(c.object, c.apiVersion, c.kind).toString('hex'),
      golden(`${c.name}.envelope.bin`).toString('hex'),
    );
  });
  test(`${c.name}: protoc's bytes → JSON equal the fixture (with and without the expected kind)`, () => {
    assert.deepEqual(
      decodeEnvelope(golden(`${c.name}.envelope.bin`), { apiVersion: c.apiVersion, kind: c.kind })
        .object,
      c.object,
    );
    assert.deepEqual(decodeEnvelope(golden(`${c.name}.envelope.bin`)).object, c.object);
  });
}

test('watch frames: a 4-byte big-endian length and the WatchEvent protoc encodes; decoded back to the event', () => {
  const lease = cases().find((c) => c.name === 'lease');
  assert.ok(lease !== undefined);
  const body = golden('watch-event.bin');
  const frame = encodeWatchFrame('MODIFIED', lease.object, lease.apiVersion, lease.kind);
  assert.equal(frame.readUInt32BE(0), body.length);
  assert.equal(frame.subarray(4).toString('hex'), body.toString('hex'));
  assert.deepEqual(decodeWatchEvent(body), { type: 'MODIFIED', object: lease.object });
});

test('an empty list decodes with "items": [] (the reference\'s JSON of an empty PodList; the agent\'s pod source iterates it)', () => {
  const bytes = encodeEnvelope(
    { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '7' }, items: [] },
    'v1',
    'PodList',
  );
  assert.deepEqual(decodeEnvelope(bytes).object, {
    apiVersion: 'v1',
    kind: 'PodList',
    metadata: { resourceVersion: '7' },
    items: [],
  });
});

test("a list from its items' messages (encodeListEnvelope) is byte for byte the whole list's encoding; a watch frame from a message the same as from the object", () => {
  const items = [0, 1, 200].map((n) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `c${n}`, namespace: 'default' },
    data: { k: 'v'.repeat(n) },
  }));
  for (const some of [[], items.slice(0, 1), items]) {
    const metadata = { resourceVersion: '42', continue: 'abc', remainingItemCount: 3 };
    const whole = encodeEnvelope(
      { apiVersion: 'v1', kind: 'ConfigMapList', metadata, items: some },
      'v1',
      'ConfigMapList',
    );
    const fromItems = encodeListEnvelope(
      'v1',
      'ConfigMapList',
      metadata,
      some.map((i) => encodeMessage(i, 'v1', 'ConfigMap')),
    );
    assert.equal(fromItems.toString('hex'), whole.toString('hex'));
  }
  const item = items[2]!;
  assert.equal(
    encodeWatchFrameOf('ADDED', encodeMessage(item, 'v1', 'ConfigMap'), 'v1', 'ConfigMap').toString(
      'hex',
    ),
    encodeWatchFrame('ADDED', item, 'v1', 'ConfigMap').toString('hex'),
  );
});
