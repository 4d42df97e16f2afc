// Certificate signing requests: the PEM request (@peculiar/x509) and the deterministic
// bootstrap name the reference uses, so a restarted bootstrap finds its own CSR.
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import type * as X509 from '@peculiar/x509';
import { toCryptoKeyPair, publicKeyDer, type PrivateKey } from './keys.js';

export interface CsrTemplate {
  commonName: string;
  organizations: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
}

/** Loaded on first use: reflect-metadata must come before @peculiar/x509. */
async function x509lib(): Promise<typeof X509> {
  await import('reflect-metadata');
  const lib = await import('@peculiar/x509');
  lib.cryptoProvider.set((await import('node:crypto')).webcrypto as unknown as Parameters<typeof lib.cryptoProvider.set>[0]);
  return lib;
}

/** A PEM `CERTIFICATE REQUEST` for the template, signed with `key`. */
export async function createCsrPem(key: PrivateKey, template: CsrTemplate): Promise<string> {
  const x509 = await x509lib();
  const keys = await toCryptoKeyPair(key);
  const extensions = [];
  const names = [
    ...(template.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(template.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  if (names.length) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: [...[{ CN: [template.commonName] }], ...template.organizations.map((o) => ({ O: [o] }))],
    keys: keys as unknown as Parameters<typeof x509.Pkcs10CertificateRequestGenerator.create>[0]['keys'],
    signingAlgorithm: keys.algorithm,
    extensions,
  });
  return csr.toString('pem') + '\n';
}

/**
 * `node-csr-` + unpadded base64url(SHA-512/256) over base64url(public key DER), CN, each O and
 * each usage, every part followed by '|' (the reference's digestedName), so the same key and
 * subject always give the same name.
 */
export function bootstrapCsrName(key: PrivateKey, commonName: string, organizations: string[], usages: string[]): string {
  const h = createHash('sha512-256');
  const write = (data: Buffer): void => {
    h.update(data.toString('base64url'));
    h.update('|');
  };
  write(publicKeyDer(key));
  write(Buffer.from(commonName));
  for (const o of organizations) write(Buffer.from(o));
  for (const u of usages) write(Buffer.from(u));
  return `node-csr-${h.digest('base64url')}`;
}

/** Client usages per the reference (key encipherment only for RSA keys). */
export function clientUsages(key: PrivateKey): string[] {
  return key.type === 'rsa' ? ['digital signature', 'key encipherment', 'client auth'] : ['digital signature', 'client auth'];
}

export function servingUsages(key: PrivateKey): string[] {
  return key.type === 'rsa' ? ['digital signature', 'key encipherment', 'server auth'] : ['digital signature', 'server auth'];
}

/** SANs for a serving certificate: host names as DNS names, IPs as IPs; deduped and sorted. */
export function servingSans(hostnames: string[], addresses: string[]): { dnsNames: string[]; ipAddresses: string[] } {
  const dns = new Set<string>();
  const ips = new Set<string>();
  for (const v of [...hostnames, ...addresses]) {
    const s = v.trim();
    if (!s) continue;
    if (isIP(s)) ips.add(s.toLowerCase());
    else dns.add(s.toLowerCase());
  }
  return { dnsNames: [...dns].sort(), ipAddresses: [...ips].sort() };
}

export { x509lib };
