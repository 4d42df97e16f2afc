// Test certificates for the agent's server tests: a CA, serving certificates for 127.0.0.1, and
// client certificates (good, expired, from an unknown CA, without client-auth usage), made with
// @peculiar/x509 over WebCrypto ECDSA P-256 keys. Not a test file.

import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
x509.cryptoProvider.set(webcrypto as never);
type CryptoKeyPair = webcrypto.CryptoKeyPair;
type CryptoKey = webcrypto.CryptoKey;

export interface TestCa {
  certPem: string;
  keyPem: string;
  keys: CryptoKeyPair;
  cert: x509.X509Certificate;
}

export interface TestLeaf {
  certPem: string;
  keyPem: string;
}

async function keyPair(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function keyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

function serial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(8)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');
}

export async function makeCa(
  name = 'test-ca',
  validity?: { notBefore: Date; notAfter: Date },
): Promise<TestCa> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${name}`,
    notBefore: validity?.notBefore ?? new Date(Date.now() - 3600_000),
    notAfter: validity?.notAfter ?? new Date(Date.now() + 24 * 3600_000),
    keys,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await keyPem(keys.privateKey), keys, cert };
}

export interface LeafOptions {
  /** e.g. `CN=alice, O=devs` */
  subject: string;
  usage: 'client' | 'server' | 'none';
  notBefore?: Date;
  notAfter?: Date;
  ips?: string[];
  dnsNames?: string[];
}

export async function makeLeaf(ca: TestCa, o: LeafOptions): Promise<TestLeaf> {
  const keys = await keyPair();
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
  ];
  if (o.usage === 'client')
    extensions.push(new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]));
  if (o.usage === 'server')
    extensions.push(new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]));
  if (o.usage === 'none')
    extensions.push(new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.codeSigning]));
  const names = [
    ...(o.ips ?? []).map((v) => ({ type: 'ip' as const, value: v })),
    ...(o.dnsNames ?? []).map((v) => ({ type: 'dns' as const, value: v })),
  ];
  if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: o.subject,
    issuer: ca.cert.subject,
    notBefore: o.notBefore ?? new Date(Date.now() - 3600_000),
    notAfter: o.notAfter ?? new Date(Date.now() + 24 * 3600_000),
    signingKey: ca.keys.privateKey,
    publicKey: keys.publicKey as never,
    signingAlgorithm: alg,
    extensions,
  });
  return { certPem: cert.toString('pem'), keyPem: await keyPem(keys.privateKey) };
}

/** A serving certificate for 127.0.0.1 and localhost. */
export function makeServing(ca: TestCa, cn = 'node-a'): Promise<TestLeaf> {
  return makeLeaf(ca, {
    subject: `CN=${cn}`,
    usage: 'server',
    ips: ['127.0.0.1'],
    dnsNames: ['localhost'],
  });
}
