// The generated CRI descriptor against the reference's wire format, without the reference's file.
// The golden .bin files under test/fixtures/cri/ were encoded by protoc from the reference's own
// api.proto (scripts/gen-cri-goldens.sh), an encoder independent of ours. What this proves: for
// the fields these messages use (maps, enums, nested and repeated messages, int64, bytes, wrapper
// values), our descriptor gives the same names, numbers and wire types as the reference's file, in
// both directions. The recorded digest ties the whole generated descriptor to the one the goldens
// were checked with: any edit to api.generated.ts (by hand or by a generator change) fails here
// until the goldens are made again. Fields the cases do not use are covered only by the digest.
// The fixtures' JSON leaves zero values out: protobufjs writes a zero it is given where Go's encoder
// leaves it off (both decode the same).
// When the reference's api.proto is on this machine, `gen-cri.mjs --check` is run against it too.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  decodeCri,
  encodeCri,
  type CriMessageName,
} from '../../../../../src/agent/runtime/cri/codec.js';
import {
  CRI_DESCRIPTOR_JSON,
  CRI_INPUT_SHA256,
} from '../../../../../src/agent/runtime/cri/api.generated.js';

const DIR = join(process.cwd(), 'test', 'fixtures', 'cri');
const UPSTREAM_PROTO =
  process.env.CRI_API_PROTO ??
  '/opt/anchors/src/kubernetes/staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto';

function isName(v: unknown): v is CriMessageName {
  return typeof v === 'string' && /^[A-Z][A-Za-z0-9]*$/.test(v);
}

/** Byte fields compared as base64, as the fixtures write them. */
function normalized(v: unknown): unknown {
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  if (Array.isArray(v)) return v.map(normalized);
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalized(x)]));
  return v;
}

const cases = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -'.json'.length));

test('every golden case has its protoc bytes', () => {
  assert.ok(cases.length >= 6, `found ${cases.length} cases`);
  for (const c of cases) assert.ok(existsSync(join(DIR, `${c}.bin`)), `${c}.bin`);
});

for (const name of cases) {
  test(`CRI wire bytes of ${name} equal protoc's, both ways`, () => {
    const fixture: unknown = JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8'));
    assert.ok(fixture !== null && typeof fixture === 'object' && 'message' in fixture);
    assert.ok('object' in fixture);
    const message = fixture.message;
    assert.ok(isName(message));
    const golden = readFileSync(join(DIR, `${name}.bin`));
    const ours = encodeCri(message, fixture.object as never);
    assert.equal(ours.toString('hex'), golden.toString('hex'));
    assert.deepEqual(normalized(decodeCri(message, golden)), fixture.object);
  });
}

test('the generated descriptor is the one the goldens were checked with', () => {
  const digest = createHash('sha256').update(CRI_DESCRIPTOR_JSON).digest('hex');
  assert.equal(digest, readFileSync(join(DIR, 'descriptor.sha256'), 'utf8').trim());
  assert.match(CRI_INPUT_SHA256, /^[0-9a-f]{64}$/);
  const types = readFileSync(
    join(process.cwd(), 'src', 'agent', 'runtime', 'cri', 'types.generated.ts'),
    'utf8',
  );
  assert.ok(types.includes(`Input sha256 ${CRI_INPUT_SHA256}.`), 'both files from one input');
  if (existsSync(UPSTREAM_PROTO)) {
    // the generator's --check against the reference's own file, when this machine has it
    execFileSync(process.execPath, ['scripts/gen-cri.mjs', UPSTREAM_PROTO, '--check']);
  }
});
