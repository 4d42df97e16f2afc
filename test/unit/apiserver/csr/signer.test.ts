import { namesFor } from '../../../../src/common/names.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import {
  approvalCheckNeeded,
  approvalCondition,
  isApprovedOrDenied,
  isNodeClientCsr,
  isSelfNodeClient,
  signingNeeded,
} from '../../../../src/apiserver/csr/approver.js';
import {
  generateCa,
  generateClientCert,
  generateServingCert,
  type CertAndKey,
} from '../../../../src/apiserver/csr/ca.js';
import {
  UnknownSignerError,
  certificateDurationSeconds,
  keyUsagesFromStrings,
  signCertificate,
} from '../../../../src/apiserver/csr/signer.js';
import { validateCsrCreate } from '../../../../src/apiserver/csr/validation.js';
import { b64, csrObject, makeCsrPem } from './fixtures.js';

const PLATFORM = namesFor('platform');

const dir = mkdtempSync(join(tmpdir(), 'csr-signer-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const now = new Date();
let ca: CertAndKey;
let nodeClientPem = '';
let servingPem = '';
before(async () => {
  ca = await generateCa({ commonName: 'plat-ca', validityDays: 365, now });
  writeFileSync(join(dir, 'ca.crt'), ca.certPem);
  nodeClientPem = await makeCsrPem({ cn: 'system:node:n1', o: ['system:nodes'] });
  servingPem = await makeCsrPem({
    cn: 'system:node:n1',
    o: ['system:nodes'],
    dns: ['n1.example.com'],
    ips: ['10.0.0.1'],
  });
});

let counter = 0;
function openssl(args: string[], pem: string): string {
  const f = join(dir, `c${counter++}.pem`);
  writeFileSync(f, pem);
  return execFileSync('openssl', [...args.map((a) => (a === '@' ? f : a))], { encoding: 'utf8' });
}

function certOf(r: Awaited<ReturnType<typeof signCertificate>>): x509.X509Certificate {
  assert.ok('certificatePem' in r, JSON.stringify(r));
  return new x509.X509Certificate(r.certificatePem);
}

const base = { names: namesFor('platform', 'platform.io'), maxDurationSeconds: 365 * 86400 };

describe('ca.ts', () => {
  test('CA is self-signed, a CA, verifiable by openssl; key is PKCS#8', () => {
    const text = openssl(['x509', '-in', '@', '-noout', '-text'], ca.certPem);
    assert.match(text, /CA:TRUE/);
    assert.match(text, /Certificate Sign/);
    assert.match(text, /prime256v1|P-256/);
    assert.match(ca.keyPem, /^-----BEGIN PRIVATE KEY-----/);
    assert.match(openssl(['verify', '-CAfile', join(dir, 'ca.crt'), '@'], ca.certPem), /OK/);
  });

  test('serving cert: SANs, serverAuth, chains to the CA', async () => {
    const s = await generateServingCert({ ca, hosts: ['localhost', '127.0.0.1', 'myhost'], now });
    assert.match(openssl(['verify', '-CAfile', join(dir, 'ca.crt'), '@'], s.certPem), /: OK/);
    const text = openssl(['x509', '-in', '@', '-noout', '-text'], s.certPem);
    assert.match(text, /DNS:localhost/);
    assert.match(text, /IP Address:127\.0\.0\.1/);
    assert.match(text, /DNS:myhost/);
    assert.match(text, /TLS Web Server Authentication/);
    assert.match(text, /CA:FALSE/);
    assert.match(s.keyPem, /^-----BEGIN PRIVATE KEY-----/);
  });

  test('client cert: CN and O, clientAuth, chains to the CA', async () => {
    const c = await generateClientCert({
      ca,
      commonName: 'admin',
      organizations: ['system:masters'],
      now,
    });
    assert.match(openssl(['verify', '-CAfile', join(dir, 'ca.crt'), '@'], c.certPem), /: OK/);
    const subj = openssl(
      ['x509', '-in', '@', '-noout', '-subject', '-nameopt', 'RFC2253'],
      c.certPem,
    );
    assert.match(subj, /CN=admin,O=system:masters/);
    assert.match(
      openssl(['x509', '-in', '@', '-noout', '-text'], c.certPem),
      /TLS Web Client Authentication/,
    );
  });
});

describe('signCertificate', () => {
  test('node client: subject copied, usages mapped, lifetime capped, openssl verifies', async () => {
    const r = await signCertificate({
      ...base,
      csrPem: nodeClientPem,
      signerName: 'platform.io/plat-apiserver-client-platlet',
      usages: ['digital signature', 'key encipherment', 'client auth'],
      ca,
      now,
    });
    const cert = certOf(r);
    assert.ok('certificatePem' in r);
    assert.match(
      openssl(['verify', '-CAfile', join(dir, 'ca.crt'), '@'], r.certificatePem),
      /: OK/,
    );
    const text = openssl(['x509', '-in', '@', '-noout', '-text'], r.certificatePem);
    assert.match(text, /Digital Signature, Key Encipherment/);
    assert.match(text, /TLS Web Client Authentication/);
    assert.match(text, /CA:FALSE/);
    assert.equal(cert.subject, 'O=system:nodes, CN=system:node:n1');
    const caCert = new x509.X509Certificate(ca.certPem);
    assert.equal(
      await cert.verify({ publicKey: caCert.publicKey, signatureOnly: true }),
      true,
      'signature verifies in code too',
    );
    assert.equal(cert.issuer, caCert.subject);
    assert.equal(cert.notBefore.getTime(), Math.floor((now.getTime() - 5 * 60_000) / 1000) * 1000);
    // TTL is the CA lifetime cap here (the CA was made at `now` with 365 days)
    assert.ok(cert.notAfter.getTime() <= new x509.X509Certificate(ca.certPem).notAfter.getTime());
    assert.equal(BigInt(`0x${cert.serialNumber}`) < 2n ** 128n, true);
  });

  test('serving: SANs copied; expirationSeconds under 8h gives exactly now+ttl', async () => {
    const r = await signCertificate({
      ...base,
      csrPem: servingPem,
      signerName: 'platform.io/platlet-serving',
      usages: ['digital signature', 'server auth'],
      expirationSeconds: 3600,
      ca,
      now,
    });
    const cert = certOf(r);
    assert.ok('certificatePem' in r);
    const text = openssl(['x509', '-in', '@', '-noout', '-text'], r.certificatePem);
    assert.match(text, /DNS:n1\.example\.com/);
    assert.match(text, /IP Address:10\.0\.0\.1/);
    assert.match(text, /TLS Web Server Authentication/);
    assert.equal(cert.notAfter.getTime(), Math.floor((now.getTime() + 3600_000) / 1000) * 1000);
  });

  test('lifetime of 8h or more loses the 5 minute backdate; below 10 min is raised to 10 min', async () => {
    const r = await signCertificate({
      ...base,
      csrPem: nodeClientPem,
      signerName: 'platform.io/plat-apiserver-client',
      usages: ['client auth'],
      expirationSeconds: 86400,
      ca,
      now,
    });
    assert.equal(
      certOf(r).notAfter.getTime(),
      Math.floor((now.getTime() + 86400_000 - 300_000) / 1000) * 1000,
    );
    assert.equal(certificateDurationSeconds(60, 3600), 600);
    assert.equal(certificateDurationSeconds(7200, 3600), 3600);
    assert.equal(certificateDurationSeconds(undefined, 3600), 3600);
    assert.equal(certificateDurationSeconds(1800, 3600), 1800);
  });

  test('never past the CA notAfter', async () => {
    const shortCa = await generateCa({ commonName: 'short', validityDays: 1, now });
    const r = await signCertificate({
      ...base,
      csrPem: nodeClientPem,
      signerName: 'platform.io/plat-apiserver-client',
      usages: ['client auth'],
      expirationSeconds: 30 * 86400,
      ca: shortCa,
      now,
    });
    assert.equal(
      certOf(r).notAfter.getTime(),
      new x509.X509Certificate(shortCa.certPem).notAfter.getTime(),
    );
  });

  const refusals: [string, string, string[], () => string, string][] = [
    [
      'serving without SANs',
      'platform.io/platlet-serving',
      ['digital signature', 'server auth'],
      () => nodeClientPem,
      'DNS or IP subjectAltName is required',
    ],
    [
      'serving wrong usages',
      'platform.io/platlet-serving',
      ['digital signature', 'client auth'],
      () => servingPem,
      'usages did not match [digital signature key encipherment server auth]',
    ],
    [
      'node client with SANs',
      'platform.io/plat-apiserver-client-platlet',
      ['digital signature', 'client auth'],
      () => servingPem,
      'DNS subjectAltNames are not allowed',
    ],
    [
      'client missing client auth',
      'platform.io/plat-apiserver-client',
      ['digital signature'],
      () => nodeClientPem,
      'missing required usage for client certificate: client auth',
    ],
    [
      'client extra usage',
      'platform.io/plat-apiserver-client',
      ['client auth', 'server auth'],
      () => nodeClientPem,
      'invalid usage for client certificate: server auth',
    ],
  ];
  for (const [name, signerName, usages, pem, message] of refusals) {
    test(`refuses: ${name}`, async () => {
      const r = await signCertificate({ ...base, csrPem: pem(), signerName, usages, ca, now });
      assert.deepEqual(r, { failed: { reason: 'SignerValidationFailure', message } });
    });
  }

  test('refuses a non-node subject for the serving signer', async () => {
    const pem = await makeCsrPem({ cn: 'web', dns: ['a'] });
    const r = await signCertificate({
      ...base,
      csrPem: pem,
      signerName: 'platform.io/platlet-serving',
      usages: ['digital signature', 'server auth'],
      ca,
      now,
    });
    assert.deepEqual(r, {
      failed: {
        reason: 'SignerValidationFailure',
        message: 'subject organization is not system:nodes',
      },
    });
  });

  test('unknown signer throws', async () => {
    await assert.rejects(
      signCertificate({
        ...base,
        csrPem: nodeClientPem,
        signerName: 'example.com/x',
        usages: ['client auth'],
        ca,
        now,
      }),
      UnknownSignerError,
    );
  });

  test('RSA requests are signed too', async () => {
    const pem = await makeCsrPem({ cn: 'u', rsa: true });
    const r = await signCertificate({
      ...base,
      csrPem: pem,
      signerName: 'platform.io/plat-apiserver-client',
      usages: ['client auth', 'key encipherment'],
      ca,
      now,
    });
    assert.ok('certificatePem' in r);
    assert.match(
      openssl(['verify', '-CAfile', join(dir, 'ca.crt'), '@'], r.certificatePem),
      /: OK/,
    );
  });

  test('a signed certificate passes status.certificate validation', async () => {
    const r = await signCertificate({
      ...base,
      csrPem: nodeClientPem,
      signerName: 'platform.io/plat-apiserver-client',
      usages: ['client auth'],
      ca,
      now,
    });
    assert.ok('certificatePem' in r);
    assert.deepEqual(
      validateCsrCreate(
        csrObject({ requestPem: nodeClientPem, status: { certificate: b64(r.certificatePem) } }),
      ),
      [],
    );
  });

  test('keyUsagesFromStrings maps every known usage, sorted EKUs', () => {
    const r = keyUsagesFromStrings([
      'client auth',
      'server auth',
      'any',
      'signing',
      'content commitment',
      's/mime',
      'email protection',
      'netscape sgc',
    ]);
    assert.ok('keyUsage' in r);
    assert.equal(
      r.keyUsage,
      x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation,
    );
    assert.deepEqual(r.extKeyUsages, [
      '2.5.29.37.0',
      '1.3.6.1.5.5.7.3.1',
      '1.3.6.1.5.5.7.3.2',
      '1.3.6.1.5.5.7.3.4',
      '2.16.840.1.113730.4.1',
    ]);
    assert.deepEqual(keyUsagesFromStrings(['bogus']), { unrecognized: ['bogus'] });
  });
});

describe('approver', () => {
  const usages = ['digital signature', 'key encipherment', 'client auth'];
  test('node client CSR detection', async () => {
    const o = csrObject({ requestPem: nodeClientPem, usages });
    assert.equal(isNodeClientCsr(o, PLATFORM), true);
    assert.equal(isNodeClientCsr(o, namesFor('platform', 'platform.io')), true);
    assert.equal(isNodeClientCsr(o, namesFor('platform', 'k8s.io')), false);
    assert.equal(isNodeClientCsr(o, namesFor('kubernetes')), false);
    // The reference's node client signer, under the kubernetes profile.
    assert.equal(
      isNodeClientCsr(
        csrObject({
          requestPem: nodeClientPem,
          usages,
          signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
        }),
        namesFor('kubernetes'),
      ),
      true,
    );
    assert.equal(
      isNodeClientCsr(
        csrObject({ requestPem: nodeClientPem, usages: ['digital signature', 'client auth'] }),
        PLATFORM,
      ),
      true,
    );
    assert.equal(
      isNodeClientCsr(csrObject({ requestPem: nodeClientPem, usages: ['client auth'] }), PLATFORM),
      false,
    );
    assert.equal(isNodeClientCsr(csrObject({ requestPem: servingPem, usages }), PLATFORM), false);
    assert.equal(
      isNodeClientCsr(
        csrObject({
          requestPem: nodeClientPem,
          usages,
          signerName: 'platform.io/plat-apiserver-client',
        }),
        PLATFORM,
      ),
      false,
    );
    assert.equal(
      isNodeClientCsr(
        csrObject({
          requestPem: await makeCsrPem({ cn: 'system:node:n1', o: ['system:nodes', 'x'] }),
          usages,
        }),
        PLATFORM,
      ),
      false,
    );
    assert.equal(
      isNodeClientCsr(
        csrObject({ requestPem: await makeCsrPem({ cn: 'node:n1', o: ['system:nodes'] }), usages }),
        PLATFORM,
      ),
      false,
    );
    assert.equal(
      isNodeClientCsr(
        csrObject({
          requestPem: await makeCsrPem({
            cn: 'system:node:n1',
            o: ['system:nodes'],
            emails: ['a@b.c'],
          }),
          usages,
        }),
        PLATFORM,
      ),
      false,
    );
  });

  test('self node client: username equals CN', () => {
    const o = csrObject({ requestPem: nodeClientPem, usages });
    (o['spec'] as Record<string, unknown>)['username'] = 'system:node:n1';
    assert.equal(isSelfNodeClient(o, PLATFORM), true);
    (o['spec'] as Record<string, unknown>)['username'] = 'system:bootstrap:abc';
    assert.equal(isSelfNodeClient(o, PLATFORM), false);
  });

  test('approval condition and state helpers', () => {
    const t = new Date('2026-11-22T12:00:00.500Z');
    assert.deepEqual(approvalCondition(t, namesFor()), {
      type: 'Approved',
      status: 'True',
      reason: 'AutoApproved',
      message: 'Auto approving platlet client certificate after SubjectAccessReview.',
      lastUpdateTime: '2026-11-22T12:00:00Z',
      lastTransitionTime: '2026-11-22T12:00:00Z',
    });
    // The reference's words under the kubernetes profile (kube-controller-manager's csrapproving).
    assert.equal(
      approvalCondition(t, namesFor('kubernetes'), true).message,
      'Auto approving self kubelet client certificate after SubjectAccessReview.',
    );
    assert.equal(
      approvalCondition(t, namesFor('kubernetes')).message,
      'Auto approving kubelet client certificate after SubjectAccessReview.',
    );
    const pending = csrObject({ requestPem: nodeClientPem });
    assert.equal(approvalCheckNeeded(pending), true);
    assert.equal(signingNeeded(pending), false);
    const approved = csrObject({
      requestPem: nodeClientPem,
      status: { conditions: [approvalCondition(t, namesFor())] },
    });
    assert.equal(approvalCheckNeeded(approved), false);
    assert.equal(signingNeeded(approved), true);
    assert.deepEqual(isApprovedOrDenied(approved), { approved: true, denied: false });
    const issued = csrObject({
      requestPem: nodeClientPem,
      status: { conditions: [approvalCondition(t, namesFor())], certificate: 'eA==' },
    });
    assert.equal(approvalCheckNeeded(issued), false);
    assert.equal(signingNeeded(issued), false);
    const failed = csrObject({
      requestPem: nodeClientPem,
      status: {
        conditions: [approvalCondition(t, namesFor()), { type: 'Failed', status: 'True' }],
      },
    });
    assert.equal(signingNeeded(failed), false);
    const denied = csrObject({
      requestPem: nodeClientPem,
      status: { conditions: [{ type: 'Denied', status: 'True' }] },
    });
    assert.equal(approvalCheckNeeded(denied), false);
    assert.deepEqual(isApprovedOrDenied(denied), { approved: false, denied: true });
  });
});
