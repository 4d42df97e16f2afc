// Certificates plat-apiserver makes for itself: the cluster signing CA, its serving certificate
// and the admin client certificate. ECDSA P-256 keys, PKCS#8 PEM.

import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';
import { exportPkcs8Pem, generateEcKeyPair, importSigningKey } from './keys.js';

export interface CertAndKey {
  readonly certPem: string;
  readonly keyPem: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const BACKDATE_MS = 5 * 60 * 1000;

/**
 * A random positive 128-bit serial, as hex (leading bit cleared so DER keeps it positive and
 * short).
 */
export function randomSerialHex(): string {
  const b = randomBytes(16);
  b[0] = (b[0] ?? 0) & 0x7f;
  if (b[0] === 0) b[0] = 1;
  return b.toString('hex');
}

export async function generateCa(opts: {
  commonName: string;
  validityDays: number;
  now: Date;
}): Promise<CertAndKey> {
  const now = opts.now;
  const keys = await generateEcKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerialHex(),
    name: [{ CN: [opts.commonName] }],
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter: new Date(now.getTime() + opts.validityDays * DAY_MS),
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign |
          x509.KeyUsageFlags.cRLSign |
          x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await exportPkcs8Pem(keys.privateKey) };
}

async function issue(opts: {
  ca: CertAndKey;
  subject: x509.JsonName;
  validityDays: number;
  keyUsage: x509.KeyUsageFlags;
  extKeyUsages: string[];
  sans?: x509.JsonGeneralNames;
  now: Date;
}): Promise<CertAndKey> {
  const now = opts.now;
  const caCert = new x509.X509Certificate(opts.ca.certPem);
  const signer = await importSigningKey(opts.ca.keyPem);
  const keys = await generateEcKeyPair();
  let notAfter = new Date(now.getTime() + opts.validityDays * DAY_MS);
  if (notAfter > caCert.notAfter) notAfter = caCert.notAfter;
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(opts.keyUsage, true),
    new x509.ExtendedKeyUsageExtension(opts.extKeyUsages, false),
    await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
  ];
  if (opts.sans !== undefined && opts.sans.length > 0)
    extensions.push(new x509.SubjectAlternativeNameExtension(opts.sans, false));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialHex(),
    subject: opts.subject,
    issuer: caCert.subjectName,
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter,
    publicKey: keys.publicKey,
    signingKey: signer.key,
    signingAlgorithm: signer.signingAlgorithm,
    extensions,
  });
  return { certPem: cert.toString('pem') + '\n', keyPem: await exportPkcs8Pem(keys.privateKey) };
}

/** A serving certificate for `hosts` (DNS names and IP addresses), CN the first host. */
export async function generateServingCert(opts: {
  ca: CertAndKey;
  hosts: readonly string[];
  validityDays?: number;
  now: Date;
}): Promise<CertAndKey> {
  const sans: x509.JsonGeneralNames = opts.hosts.map((h) =>
    isIP(h) !== 0 ? { type: 'ip', value: h } : { type: 'dns', value: h },
  );
  return issue({
    ca: opts.ca,
    subject: [{ CN: [opts.hosts[0] ?? 'localhost'] }],
    validityDays: opts.validityDays ?? 365,
    keyUsage: x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
    extKeyUsages: [x509.ExtendedKeyUsage.serverAuth],
    sans,
    now: opts.now,
  });
}

/** A client certificate: CN is the user name, O the groups. */
export async function generateClientCert(opts: {
  ca: CertAndKey;
  commonName: string;
  organizations: readonly string[];
  validityDays?: number;
  now: Date;
}): Promise<CertAndKey> {
  const subject: x509.JsonName = [];
  if (opts.organizations.length > 0) subject.push({ O: [...opts.organizations] });
  subject.push({ CN: [opts.commonName] });
  return issue({
    ca: opts.ca,
    subject,
    validityDays: opts.validityDays ?? 365,
    keyUsage: x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
    extKeyUsages: [x509.ExtendedKeyUsage.clientAuth],
    now: opts.now,
  });
}
