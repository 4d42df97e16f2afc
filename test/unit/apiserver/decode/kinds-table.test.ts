// The kinds the schema table gained with the OpenAPI documents (Lease, the RBAC kinds, the
// reviews) are decoded as the reference decodes them: unknown fields found (fieldValidation),
// type mismatches in encoding/json's words, []byte fields named []uint8 as Go names them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError, decodeBody } from '../../../../src/apiserver/decode.js';

const decode = (body: unknown, kind: string, apiVersion: string) =>
  decodeBody({ body: JSON.stringify(body), contentType: 'application/json', kind, apiVersion });

function mismatch(body: unknown, kind: string, apiVersion: string): string {
  try {
    decode(body, kind, apiVersion);
  } catch (e) {
    assert.ok(e instanceof DecodeError, String(e));
    return e.message;
  }
  return 'no error';
}

test('RBAC kinds: unknown fields are found at their paths', () => {
  const r = decode(
    {
      metadata: { name: 'r' },
      rules: [{ verbs: ['get'], resources: ['pods'], verb: 'x' }],
      rulez: [],
    },
    'ClusterRole',
    'rbac.authorization.k8s.io/v1',
  );
  assert.deepEqual(r.unknownFields.sort(), ['rules[0].verb', 'rulez']);
  const b = decode(
    {
      metadata: { name: 'b' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r', extra: 1 },
      subjects: [{ kind: 'User', name: 'u' }],
    },
    'RoleBinding',
    'rbac.authorization.k8s.io/v1',
  );
  assert.deepEqual(b.unknownFields, ['roleRef.extra']);
});

test('Lease: an int32 given as a string, in the reference message', () => {
  assert.equal(
    mismatch({ spec: { leaseDurationSeconds: '40' } }, 'Lease', 'coordination.k8s.io/v1'),
    'Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32',
  );
});

test("a []byte field given a number names Go's []uint8", () => {
  assert.equal(
    mismatch({ spec: { request: 5 } }, 'CertificateSigningRequest', 'certificates.k8s.io/v1'),
    'CertificateSigningRequest in version "v1" cannot be handled as a CertificateSigningRequest: json: cannot unmarshal number into Go struct field CertificateSigningRequestSpec.spec.request of type []uint8',
  );
});

test('reviews: unknown fields in the spec are found', () => {
  const r = decode(
    { spec: { resourceAttributes: { verb: 'get', resource: 'pods', verbs: ['x'] } } },
    'SelfSubjectAccessReview',
    'authorization.k8s.io/v1',
  );
  assert.deepEqual(r.unknownFields, ['spec.resourceAttributes.verbs']);
  assert.deepEqual(
    decode({ spec: { token: 't', audiences: ['a'] } }, 'TokenReview', 'authentication.k8s.io/v1')
      .unknownFields,
    [],
  );
});
