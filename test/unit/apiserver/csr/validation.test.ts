import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatFieldErrors, type FieldError } from '../../../../src/apiserver/field-errors.js';
import { generateCa } from '../../../../src/apiserver/csr/ca.js';
import {
  prepareCsrForApprovalUpdate,
  prepareCsrForCreate,
  prepareCsrForStatusUpdate,
  prepareCsrForUpdate,
} from '../../../../src/apiserver/csr/strategy.js';
import {
  EXPIRATION_MESSAGE,
  SIGNER_NAME_MESSAGE,
  validateCsrApprovalUpdate,
  validateCsrCreate,
  validateCsrStatusUpdate,
  validateCsrUpdate,
  validateSignerName,
} from '../../../../src/apiserver/csr/validation.js';
import { b64, csrObject, makeCsrPem } from './fixtures.js';

let pem = '';
let rsaPem = '';
let certPem = '';
before(async () => {
  pem = await makeCsrPem({ cn: 'system:node:n1', o: ['system:nodes'] });
  rsaPem = await makeCsrPem({ cn: 'x', rsa: true });
  certPem = (await generateCa({ commonName: 'test-ca', validityDays: 1, now: new Date() })).certPem;
});

function clone<T>(v: T): T {
  return structuredClone(v);
}

function texts(errs: FieldError[]): string[] {
  return errs.map((e) => formatFieldErrors([e]));
}

describe('validateCsrCreate', () => {
  test('a valid request (ECDSA and RSA) has no errors', () => {
    assert.deepEqual(validateCsrCreate(csrObject({ requestPem: pem })), []);
    assert.deepEqual(
      validateCsrCreate(csrObject({ requestPem: rsaPem, expirationSeconds: 600 })),
      [],
    );
  });

  const cases: [string, (o: Record<string, unknown>) => void, string][] = [
    [
      'wrong PEM type',
      (o) => ((o['spec'] as Record<string, unknown>)['request'] = b64(certPem)),
      'spec.request: Invalid value: []byte{',
    ],
    [
      'not PEM at all',
      (o) => ((o['spec'] as Record<string, unknown>)['request'] = b64('hello')),
      'PEM block type must be CERTIFICATE REQUEST',
    ],
    [
      'empty request',
      (o) => delete (o['spec'] as Record<string, unknown>)['request'],
      'PEM block type must be CERTIFICATE REQUEST',
    ],
    [
      'bad base64',
      (o) => ((o['spec'] as Record<string, unknown>)['request'] = '!!!'),
      'spec.request: Invalid value',
    ],
    [
      'garbage DER',
      (o) =>
        ((o['spec'] as Record<string, unknown>)['request'] = b64(
          '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n',
        )),
      'x509: malformed certificate request',
    ],
    [
      'no usages',
      (o) => delete (o['spec'] as Record<string, unknown>)['usages'],
      'spec.usages: Required value',
    ],
    [
      'empty usages',
      (o) => ((o['spec'] as Record<string, unknown>)['usages'] = []),
      'spec.usages: Required value',
    ],
    [
      'unknown usage',
      (o) => ((o['spec'] as Record<string, unknown>)['usages'] = ['client auth', 'bogus']),
      'spec.usages[1]: Unsupported value: "bogus": supported values: "any", "cert sign"',
    ],
    [
      'duplicate usage',
      (o) => ((o['spec'] as Record<string, unknown>)['usages'] = ['client auth', 'client auth']),
      'spec.usages[1]: Duplicate value: "client auth"',
    ],
    [
      'no signer',
      (o) => delete (o['spec'] as Record<string, unknown>)['signerName'],
      'spec.signerName: Required value',
    ],
    [
      'signer without slash',
      (o) => ((o['spec'] as Record<string, unknown>)['signerName'] = 'example.com'),
      `spec.signerName: Invalid value: "example.com": ${SIGNER_NAME_MESSAGE}`,
    ],
    [
      'expiration too short',
      (o) => ((o['spec'] as Record<string, unknown>)['expirationSeconds'] = 599),
      `spec.expirationSeconds: Invalid value: 599: ${EXPIRATION_MESSAGE}`,
    ],
    [
      'no name',
      (o) => ((o['metadata'] as Record<string, unknown>) = {}),
      'metadata.name: Required value: name or generateName is required',
    ],
    [
      'bad name',
      (o) => ((o['metadata'] as Record<string, unknown>)['name'] = 'a/b'),
      'metadata.name: Invalid value: "a/b": may not contain \'/\'',
    ],
    [
      'namespace on cluster-scoped',
      (o) => ((o['metadata'] as Record<string, unknown>)['namespace'] = 'default'),
      'metadata.namespace: Forbidden: not allowed on this type',
    ],
    [
      'condition without type',
      (o) => (o['status'] = { conditions: [{ status: 'True' }] }),
      'status.conditions[0].type: Required value',
    ],
    [
      'condition without status',
      (o) => (o['status'] = { conditions: [{ type: 'Approved' }] }),
      'status.conditions[0].status: Required value',
    ],
    [
      'Approved False',
      (o) => (o['status'] = { conditions: [{ type: 'Approved', status: 'False' }] }),
      'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
    ],
    [
      'Failed Unknown',
      (o) => (o['status'] = { conditions: [{ type: 'Failed', status: 'Unknown' }] }),
      'status.conditions[0].status: Unsupported value: "Unknown"',
    ],
    [
      'custom condition bad status',
      (o) => (o['status'] = { conditions: [{ type: 'Custom', status: 'Maybe' }] }),
      'supported values: "False", "True", "Unknown"',
    ],
    [
      'duplicate condition',
      (o) =>
        (o['status'] = {
          conditions: [
            { type: 'Failed', status: 'True' },
            { type: 'Failed', status: 'True' },
          ],
        }),
      'status.conditions[1].type: Duplicate value: "Failed"',
    ],
    [
      'approved and denied',
      (o) =>
        (o['status'] = {
          conditions: [
            { type: 'Approved', status: 'True' },
            { type: 'Denied', status: 'True' },
          ],
        }),
      'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
    ],
    [
      'certificate wrong block',
      (o) => (o['status'] = { certificate: b64(pem) }),
      'status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"',
    ],
    [
      'certificate no blocks',
      (o) => (o['status'] = { certificate: b64('junk') }),
      'must contain at least one CERTIFICATE PEM block',
    ],
    [
      'certificate headers',
      (o) =>
        (o['status'] = {
          certificate: b64(certPem.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n\n')),
        }),
      'no PEM block headers are permitted',
    ],
    [
      'certificate garbage',
      (o) =>
        (o['status'] = {
          certificate: b64('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'),
        }),
      'x509: malformed certificate',
    ],
  ];
  for (const [name, mutate, want] of cases) {
    test(name, () => {
      const o = clone(csrObject({ requestPem: pem }));
      mutate(o);
      const got = texts(validateCsrCreate(o));
      assert.ok(
        got.some((t) => t.includes(want)),
        `want ${want}\ngot ${JSON.stringify(got, null, 1)}`,
      );
    });
  }

  test('a valid certificate with text around it is accepted', () => {
    const o = csrObject({
      requestPem: pem,
      status: { certificate: b64(`intro\n${certPem}${certPem}trailer`) },
    });
    assert.deepEqual(validateCsrCreate(o), []);
  });

  test('a tampered signature fails verification', async () => {
    const p = await makeCsrPem({ cn: 'x' });
    const der = Buffer.from(p.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64');
    der[der.length - 5] = (der[der.length - 5] ?? 0) ^ 0xff;
    const bad = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    const errs = texts(validateCsrCreate(csrObject({ requestPem: bad })));
    assert.equal(errs.length, 1);
    assert.match(errs[0] ?? '', /^spec\.request: Invalid value: \[\]byte\{<\d+ bytes>\}: x509: /);
  });

  test('a bootstrap CSR name (base64url: upper case, "_" and "-") is accepted, as the reference accepts it', () => {
    const o = csrObject({ requestPem: pem });
    (o['metadata'] as Record<string, unknown>)['name'] = 'node-csr-Ab_9-xYz0QkLmN';
    assert.deepEqual(texts(validateCsrCreate(o)), []);
  });

  test('generateName instead of name', () => {
    const o = csrObject({ requestPem: pem });
    o['metadata'] = { generateName: 'csr-' };
    assert.deepEqual(validateCsrCreate(o), []);
  });
});

describe('validateSignerName', () => {
  const ok = ['example.com/signer', 'platform.io/plat-apiserver-client', 'a.b.c/x.y-z'];
  const bad = [
    'example.com',
    'a/b/c',
    'example/signer',
    'Example.com/signer',
    'example.com/',
    '/signer',
    'example.com/Signer',
    'ex_ample.com/s',
    `${'a'.repeat(64)}.com/s`,
  ];
  for (const s of ok)
    test(`accepts ${s}`, () => assert.deepEqual(validateSignerName('spec.signerName', s), []));
  for (const s of bad) {
    test(`rejects ${s}`, () => {
      const errs = validateSignerName('spec.signerName', s);
      assert.ok(
        errs.some((e) => e.detail === SIGNER_NAME_MESSAGE),
        JSON.stringify(errs),
      );
    });
  }
  test('too long', () => {
    const s = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.com/x`;
    assert.ok(validateSignerName('f', s).some((e) => e.type === 'FieldValueTooLong'));
  });
});

describe('updates', () => {
  const approved = {
    type: 'Approved',
    status: 'True',
    reason: 'R',
    message: 'm',
    lastUpdateTime: '2026-01-01T00:00:00Z',
    lastTransitionTime: '2026-01-01T00:00:00Z',
  };
  const now = new Date('2026-11-22T12:00:00.123Z');

  test('main resource: spec and status restored from storage; metadata changes kept', () => {
    const old = csrObject({ requestPem: pem, status: { conditions: [approved] } });
    const next = clone(old);
    (next['spec'] as Record<string, unknown>)['usages'] = ['client auth'];
    next['status'] = {};
    (next['metadata'] as Record<string, unknown>)['labels'] = { a: 'b' };
    prepareCsrForUpdate(next, old);
    assert.deepEqual(next['spec'], old['spec']);
    assert.deepEqual(next['status'], old['status']);
    assert.deepEqual((next['metadata'] as Record<string, unknown>)['labels'], { a: 'b' });
    assert.deepEqual(validateCsrUpdate(next, old), []);
  });

  test('main resource cannot set the certificate or add approvals (validation, without prepare)', () => {
    const old = csrObject({ requestPem: pem });
    const next = csrObject({
      requestPem: pem,
      status: { certificate: b64(certPem), conditions: [approved] },
    });
    const got = texts(validateCsrUpdate(next, old));
    assert.ok(
      got.includes('status.certificate: Forbidden: updates may not set certificate content'),
      got.join('\n'),
    );
    assert.ok(
      got.includes(
        'status.conditions: Forbidden: updates may not add a condition of type "Approved"',
      ),
    );
  });

  test('spec is immutable', () => {
    const old = csrObject({ requestPem: pem });
    const next = csrObject({ requestPem: pem, usages: ['client auth'] });
    assert.ok(texts(validateCsrUpdate(next, old)).includes('spec: Forbidden: field is immutable'));
  });

  test('name is immutable', () => {
    const old = csrObject({ requestPem: pem });
    const next = csrObject({ requestPem: pem, name: 'other' });
    assert.ok(
      texts(validateCsrUpdate(next, old)).includes(
        'metadata.name: Invalid value: "other": field is immutable',
      ),
    );
  });

  test('/status: certificate set once', () => {
    const old = csrObject({ requestPem: pem, status: { conditions: [approved] } });
    const next = prepareCsrForStatusUpdate(
      csrObject({ requestPem: pem, status: { conditions: [approved], certificate: b64(certPem) } }),
      old,
      now,
    );
    assert.deepEqual(validateCsrStatusUpdate(next, old), []);
    const again = prepareCsrForStatusUpdate(
      csrObject({
        requestPem: pem,
        status: { conditions: [approved], certificate: b64(certPem + certPem) },
      }),
      next,
      now,
    );
    assert.deepEqual(texts(validateCsrStatusUpdate(again, next)), [
      'status.certificate: Forbidden: updates may not modify existing certificate content',
    ]);
  });

  test('/status: keeps spec, appends Failed (as the signer does) with filled times', () => {
    const old = csrObject({ requestPem: pem, status: { conditions: [approved] } });
    const body = csrObject({
      requestPem: pem,
      usages: ['server auth'],
      status: {
        conditions: [
          approved,
          { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: 'x' },
        ],
      },
    });
    const next = prepareCsrForStatusUpdate(body, old, now);
    assert.deepEqual(next['spec'], old['spec']);
    const conds = (next['status'] as { conditions: Record<string, unknown>[] }).conditions;
    assert.equal(conds.length, 2);
    const failed = conds.find((c) => c['type'] === 'Failed');
    assert.equal(failed?.['lastUpdateTime'], '2026-11-22T12:00:00Z');
    assert.equal(failed?.['lastTransitionTime'], '2026-11-22T12:00:00Z');
    assert.deepEqual(
      conds.find((c) => c['type'] === 'Approved'),
      approved,
    );
    assert.deepEqual(validateCsrStatusUpdate(next, old), []);
  });

  test('/status may not add or remove Approved/Denied; an edited approval is put back as stored', () => {
    const old = csrObject({ requestPem: pem });
    const next = prepareCsrForStatusUpdate(
      csrObject({ requestPem: pem, status: { conditions: [{ type: 'Denied', status: 'True' }] } }),
      old,
      now,
    );
    assert.deepEqual(texts(validateCsrStatusUpdate(next, old)), [
      'status.conditions: Forbidden: updates may not add a condition of type "Denied"',
    ]);
    const old2 = csrObject({ requestPem: pem, status: { conditions: [approved] } });
    const next2 = prepareCsrForStatusUpdate(
      csrObject({ requestPem: pem, status: { conditions: [{ ...approved, message: 'changed' }] } }),
      old2,
      now,
    );
    assert.deepEqual((next2['status'] as { conditions: unknown[] }).conditions, [approved]);
    assert.deepEqual(validateCsrStatusUpdate(next2, old2), []);
    const removed = prepareCsrForStatusUpdate(
      csrObject({ requestPem: pem, status: { conditions: [] } }),
      old2,
      now,
    );
    assert.deepEqual(texts(validateCsrStatusUpdate(removed, old2)), [
      'status.conditions: Forbidden: updates may not remove a condition of type "Approved"',
    ]);
  });

  test('main resource validation (without prepare) rejects a modified approval', () => {
    const old2 = csrObject({ requestPem: pem, status: { conditions: [approved] } });
    const next2 = csrObject({
      requestPem: pem,
      status: { conditions: [{ ...approved, message: 'changed' }] },
    });
    assert.deepEqual(texts(validateCsrUpdate(next2, old2)), [
      'status.conditions: Forbidden: updates may not modify a condition of type "Approved"',
    ]);
  });

  test('/approval: only conditions taken, times filled, lastTransitionTime kept for same type+status', () => {
    const old = csrObject({
      requestPem: pem,
      status: {
        certificate: b64(certPem),
        conditions: [
          { type: 'Custom', status: 'True', lastTransitionTime: '2020-01-01T00:00:00Z' },
        ],
      },
    });
    const body = csrObject({
      requestPem: pem,
      usages: ['server auth'],
      status: {
        certificate: 'ignored',
        conditions: [
          { type: 'Custom', status: 'True' },
          {
            type: 'Approved',
            status: 'True',
            reason: 'KubectlApprove',
            message: 'This CSR was approved by kubectl certificate approve.',
          },
        ],
      },
    });
    const next = prepareCsrForApprovalUpdate(body, old, now);
    assert.deepEqual(next['spec'], old['spec']);
    const status = next['status'] as { certificate: string; conditions: Record<string, unknown>[] };
    assert.equal(status.certificate, b64(certPem));
    assert.equal(status.conditions[0]?.['lastTransitionTime'], '2020-01-01T00:00:00Z');
    assert.equal(status.conditions[1]?.['lastTransitionTime'], '2026-11-22T12:00:00Z');
    assert.deepEqual(validateCsrApprovalUpdate(next, old), []);
  });

  test('/approval: no removal, no Approved+Denied', () => {
    const old = csrObject({ requestPem: pem, status: { conditions: [approved] } });
    const removed = prepareCsrForApprovalUpdate(
      csrObject({ requestPem: pem, status: { conditions: [] } }),
      old,
      now,
    );
    assert.deepEqual(texts(validateCsrApprovalUpdate(removed, old)), [
      'status.conditions: Forbidden: updates may not remove a condition of type "Approved"',
    ]);
    const both = prepareCsrForApprovalUpdate(
      csrObject({
        requestPem: pem,
        status: { conditions: [approved, { type: 'Denied', status: 'True' }] },
      }),
      old,
      now,
    );
    assert.ok(
      texts(validateCsrApprovalUpdate(both, old)).some((t) =>
        t.endsWith('Approved and Denied conditions are mutually exclusive'),
      ),
    );
  });

  test('Failed cannot be removed via /status', () => {
    const old = csrObject({
      requestPem: pem,
      status: { conditions: [{ type: 'Failed', status: 'True' }] },
    });
    const next = prepareCsrForStatusUpdate(
      csrObject({ requestPem: pem, status: { conditions: [] } }),
      old,
      now,
    );
    assert.deepEqual(texts(validateCsrStatusUpdate(next, old)), [
      'status.conditions: Forbidden: updates may not remove a condition of type "Failed"',
    ]);
  });
});

describe('prepareCsrForCreate', () => {
  test('user info replaced from the caller, status reset', () => {
    const o = csrObject({
      requestPem: pem,
      status: { conditions: [{ type: 'Approved', status: 'True' }], certificate: 'x' },
    });
    Object.assign(o['spec'] as Record<string, unknown>, {
      username: 'evil',
      uid: 'u0',
      groups: ['system:masters'],
      extra: { a: ['b'] },
    });
    prepareCsrForCreate(o, {
      username: 'system:node:n1',
      uid: 'u1',
      groups: ['system:nodes', 'system:authenticated'],
      extra: { scopes: ['x'] },
    });
    const spec = o['spec'] as Record<string, unknown>;
    assert.equal(spec['username'], 'system:node:n1');
    assert.equal(spec['uid'], 'u1');
    assert.deepEqual(spec['groups'], ['system:nodes', 'system:authenticated']);
    assert.deepEqual(spec['extra'], { scopes: ['x'] });
    assert.deepEqual(o['status'], {});
    const o2 = csrObject({ requestPem: pem });
    Object.assign(o2['spec'] as Record<string, unknown>, { uid: 'u0', extra: { a: ['b'] } });
    prepareCsrForCreate(o2, { username: 'anon', groups: [] });
    assert.deepEqual(Object.keys(o2['spec'] as object).sort(), [
      'request',
      'signerName',
      'usages',
      'username',
    ]);
  });
});

describe('compatibility with stored data', () => {
  test('an update that leaves a (now invalid) certificate alone is accepted', () => {
    const old = csrObject({ requestPem: pem, status: { certificate: b64('not a certificate') } });
    const next = structuredClone(old);
    (next['metadata'] as Record<string, unknown>)['labels'] = { a: 'b' };
    assert.deepEqual(validateCsrUpdate(next, old), []);
  });
  test('stored Approved+Denied and legacy signer stay updatable', () => {
    const old = csrObject({
      requestPem: pem,
      signerName: 'kubernetes.io/legacy-unknown',
      status: {
        conditions: [
          { type: 'Approved', status: 'True' },
          { type: 'Denied', status: 'True' },
        ],
      },
    });
    assert.ok(
      texts(validateCsrCreate(old)).some((t) =>
        t.includes('the legacy signerName is not allowed via this API version'),
      ),
    );
    const next = structuredClone(old);
    (next['metadata'] as Record<string, unknown>)['labels'] = { a: 'b' };
    assert.deepEqual(validateCsrUpdate(next, old), []);
  });
  test("the legacy signer is the profile's: platform.io/legacy-unknown under the platform profile", () => {
    const ours = csrObject({ requestPem: pem, signerName: 'platform.io/legacy-unknown' });
    assert.ok(
      texts(validateCsrCreate(ours, 'platform.io/legacy-unknown')).some((t) =>
        t.includes('the legacy signerName is not allowed via this API version'),
      ),
    );
    assert.ok(
      !texts(validateCsrCreate(ours)).some((t) => t.includes('legacy')),
      "under the reference's names it is an ordinary signer",
    );
  });
});
