// The descriptions of the OpenAPI documents (what `kubectl explain` prints): each served kind
// carries one sentence of our own, in the profile's names; fields and inner types carry none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlatformProfile } from '../../../../src/common/names.js';
import { openApiFor } from '../../../helpers/openapi-catalog.js';

type Json = Record<string, unknown>;

function schemasOf(profile: PlatformProfile, domain?: string): Map<string, Json> {
  const o = openApiFor(profile, undefined, domain);
  const out = new Map<string, Json>();
  for (const key of Object.keys(o.index().paths)) {
    const doc = o.v3Document(key) as { components: { schemas: Record<string, Json> } };
    for (const [name, def] of Object.entries(doc.components.schemas)) out.set(name, def);
  }
  return out;
}

const CSR = 'io.k8s.api.certificates.v1.CertificateSigningRequest';

test('every kind with a group-version-kind is described in one sentence; nothing else is', () => {
  for (const profile of ['kubernetes', 'platform'] as const) {
    const undescribedKinds: string[] = [];
    const describedOthers: string[] = [];
    for (const [name, def] of schemasOf(profile)) {
      const kind = def['x-kubernetes-group-version-kind'] !== undefined;
      const d = def['description'];
      if (kind && !name.endsWith('List') && !name.includes('.meta.') && typeof d !== 'string')
        undescribedKinds.push(name);
      if (typeof d === 'string') {
        assert.match(d, /^[A-Z][^\n]{10,140}\.$/, `${name}: one short sentence`);
        if (!kind) describedOthers.push(name);
      }
      for (const [k, p] of Object.entries((def['properties'] as Record<string, Json>) ?? {}))
        assert.equal(p['description'], undefined, `${name}.${k} carries no description`);
    }
    assert.deepEqual(undescribedKinds, [], profile);
    assert.deepEqual(describedOthers, [], profile);
  }
});

test("a description names the profile's own signer", () => {
  assert.match(
    String(schemasOf('kubernetes').get(CSR)?.['description']),
    /\(such as kubernetes\.io\/kube-apiserver-client-kubelet\)/,
  );
  assert.match(
    String(schemasOf('platform', 'example.org').get(CSR)?.['description']),
    /\(such as example\.org\/plat-apiserver-client-platlet\)/,
  );
});
