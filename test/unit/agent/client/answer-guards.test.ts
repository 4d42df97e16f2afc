// The type guards that decode well-formed CSR answers without zod (the bootstrap path) take
// nothing their zod schemas refuse, and take the well-formed answers the bootstrap sees (so the
// fast path is the one used): fuzzed with fast-check against the schemas themselves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isCertificateSigningRequest } from '../../../../src/agent/client/csr-shape.js';
import { CertificateSigningRequestSchema } from '../../../../src/agent/client/csr-schema.js';
import { isObjectListOf, isObjectMeta } from '../../../../src/agent/client/meta-shape.js';
import { listSchema, ObjectMetaSchema } from '../../../../src/agent/client/api-schemas.js';

/** As an answer arrives: parsed JSON (fast-check's objects may have a null prototype). */
const asAnswer = (v: unknown): unknown => JSON.parse(JSON.stringify(v) ?? 'null');

/** A value of the right type, or any JSON value (often of the wrong type), or (key) absent. */
const either = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 3, arbitrary: good }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });
const str = fc.string({ maxLength: 8 });
const strings = fc.array(str, { maxLength: 3 });
const strMap = fc.dictionary(str, str, { maxKeys: 3 });

const meta = fc.record(
  {
    name: either(str),
    generateName: either(str),
    namespace: either(str),
    uid: either(str),
    resourceVersion: either(str),
    generation: either(fc.integer()),
    creationTimestamp: either(str),
    deletionTimestamp: either(str),
    labels: either(strMap),
    annotations: either(strMap),
    ownerReferences: either(fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 })),
    finalizers: either(strings),
    extra: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);

const condition = fc.record(
  {
    type: either(str),
    status: either(fc.constantFrom('True', 'False', 'Unknown')),
    reason: either(str),
    message: either(str),
    lastUpdateTime: either(str),
    lastTransitionTime: either(str),
  },
  { requiredKeys: ['type', 'status'] },
);

const csr = fc.record(
  {
    apiVersion: either(str),
    kind: either(str),
    metadata: either(meta),
    spec: either(
      fc.record(
        {
          request: either(str),
          signerName: either(str),
          expirationSeconds: either(fc.integer({ min: 600, max: 86400 })),
          usages: either(strings),
          username: either(str),
          uid: either(str),
          groups: either(strings),
          extra: either(fc.dictionary(str, strings, { maxKeys: 2 })),
        },
        { requiredKeys: ['request', 'signerName'] },
      ),
    ),
    status: either(
      fc.record(
        {
          certificate: either(str),
          conditions: either(fc.array(either(condition), { maxLength: 3 })),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: ['spec'] },
);

test('isCertificateSigningRequest takes nothing the zod schema refuses, and what it takes zod passes through unchanged', () => {
  fc.assert(
    fc.property(fc.oneof(csr, fc.jsonValue({ maxDepth: 3 })), (raw) => {
      const v = asAnswer(raw);
      if (!isCertificateSigningRequest(v)) return;
      const parsed = CertificateSigningRequestSchema.safeParse(v);
      assert.ok(parsed.success, `the guard took ${JSON.stringify(v)}, the schema refuses it`);
      assert.deepEqual(asAnswer(parsed.data), v);
    }),
    { numRuns: 2000 },
  );
});

test('isObjectMeta and isObjectListOf take nothing their zod schemas refuse', () => {
  const csrList = listSchema(CertificateSigningRequestSchema);
  fc.assert(
    fc.property(fc.oneof(meta, fc.jsonValue({ maxDepth: 2 })), (raw) => {
      const v = asAnswer(raw);
      if (isObjectMeta(v)) assert.ok(ObjectMetaSchema.safeParse(v).success, JSON.stringify(v));
    }),
    { numRuns: 1000 },
  );
  const list = fc.record(
    {
      apiVersion: either(str),
      kind: either(str),
      metadata: either(
        fc.record(
          {
            resourceVersion: either(str),
            continue: either(str),
            remainingItemCount: either(fc.integer()),
          },
          { requiredKeys: [] },
        ),
      ),
      items: either(fc.array(csr, { maxLength: 2 })),
    },
    { requiredKeys: [] },
  );
  fc.assert(
    fc.property(list, (raw) => {
      const v = asAnswer(raw);
      if (isObjectListOf(v, isCertificateSigningRequest))
        assert.deepEqual(asAnswer(csrList.parse(v)), v);
    }),
    { numRuns: 1000 },
  );
});

test('the CSR answers of a bootstrap (created, approved, issued) and their list are taken by the guards', () => {
  const created = {
    apiVersion: 'certificates.platform.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: {
      name: 'node-csr-x',
      uid: 'u1',
      resourceVersion: '7',
      creationTimestamp: '2026-11-24T05:00:00Z',
      managedFields: [{ manager: 'nodeagent' }],
    },
    spec: {
      request: 'LS0t',
      signerName: 'platform.io/plat-apiserver-client-platlet',
      expirationSeconds: 86400,
      usages: ['digital signature', 'client auth'],
      username: 'system:bootstrap:abcdef',
      groups: ['system:bootstrappers', 'system:authenticated'],
      extra: { 'authentication.platform.io/credential-id': ['X'] },
    },
    status: {},
  };
  const issued = {
    ...created,
    status: {
      certificate: 'LS0t',
      conditions: [
        {
          type: 'Approved',
          status: 'True',
          reason: 'AutoApproved',
          message: 'auto',
          lastUpdateTime: '2026-11-24T05:00:00Z',
          lastTransitionTime: '2026-11-24T05:00:00Z',
        },
      ],
    },
  };
  assert.equal(isCertificateSigningRequest(created), true);
  assert.equal(isCertificateSigningRequest(issued), true);
  assert.equal(
    isObjectListOf(
      {
        apiVersion: 'certificates.platform.io/v1',
        kind: 'CertificateSigningRequestList',
        metadata: { resourceVersion: '9' },
        items: [created, issued],
      },
      isCertificateSigningRequest,
    ),
    true,
  );
  // What the schema refuses, the guard refuses too (the error then comes from the schema).
  assert.equal(isCertificateSigningRequest({ ...created, spec: undefined }), false);
  assert.equal(
    isCertificateSigningRequest({
      ...issued,
      status: { conditions: [{ type: 'Approved', status: 'Yes' }] },
    }),
    false,
  );
  assert.equal(isObjectListOf({ items: null }, isCertificateSigningRequest), false);
});
