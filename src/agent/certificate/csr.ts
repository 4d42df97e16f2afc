// Certificate signing requests: the PEM PKCS#10 request, built with @peculiar/asn1-csr (the
// ASN.1 layer under @peculiar/x509, which loads in about a third of the time: this is on the
// bootstrap path) and signed with node:crypto; and the deterministic bootstrap name the
// reference uses, so a restarted bootstrap finds its own CSR.
import { createHash, sign } from 'node:crypto';
import { isIP } from 'node:net';
import type * as X509 from '@peculiar/x509';
import type * as Asn1Libs from './asn1-libs.js';
import { publicKeyDer, type PrivateKey } from './keys.js';
import { decodePemBlocks, encodePem } from '../../common/util/pem.js';

export interface CsrTemplate {
  commonName: string;
  organizations: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
}

/** Loaded on first use: reflect-metadata must come before @peculiar/x509. */
async function x509lib(): Promise<typeof X509> {
  const { x509: lib } = await import('./x509-lib.js');
  lib.cryptoProvider.set((await import('node:crypto')).webcrypto as unknown as Parameters<typeof lib.cryptoProvider.set>[0]);
  return lib;
}

/** The ASN.1 schema, X.509 and PKCS#10 structures, loaded on first use. */
export async function asn1lib(): Promise<typeof Asn1Libs> {
  return import('./asn1-libs.js');
}

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  extensionRequest: '1.2.840.113549.1.9.14',
  subjectAltName: '2.5.29.17',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  sha256WithRsa: '1.2.840.113549.1.1.11',
};

/** PrintableString's alphabet; other names are UTF8String (as @peculiar/x509 encodes them). */
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/** A PEM `CERTIFICATE REQUEST` for the template, signed with `key` (SHA-256). */
export async function createCsrPem(key: PrivateKey, template: CsrTemplate): Promise<string> {
  const { schema, x509: asn, csr } = await asn1lib();
  const { AsnConvert, OctetString } = schema;
  const rdn = (type: string, value: string): InstanceType<typeof asn.RelativeDistinguishedName> =>
    new asn.RelativeDistinguishedName([new asn.AttributeTypeAndValue({ type, value: new asn.AttributeValue(PRINTABLE.test(value) ? { printableString: value } : { utf8String: value }) })]);
  const subject = new asn.Name([rdn(OID.commonName, template.commonName), ...template.organizations.map((o) => rdn(OID.organization, o))]);
  const names = [
    ...(template.dnsNames ?? []).map((dNSName) => new asn.GeneralName({ dNSName })),
    ...(template.ipAddresses ?? []).map((iPAddress) => new asn.GeneralName({ iPAddress })),
  ];
  const attributes = new csr.Attributes();
  if (names.length) {
    const san = new asn.Extension({ extnID: OID.subjectAltName, critical: false, extnValue: new OctetString(AsnConvert.serialize(new asn.SubjectAlternativeName(names))) });
    attributes.push(new asn.Attribute({ type: OID.extensionRequest, values: [AsnConvert.serialize(new asn.Extensions([san]))] }));
  }
  const info = new csr.CertificationRequestInfo({
    subject,
    subjectPKInfo: AsnConvert.parse(publicKeyDer(key), asn.SubjectPublicKeyInfo),
    attributes,
  });
  const tbs = Buffer.from(AsnConvert.serialize(info));
  const request = new csr.CertificationRequest({
    certificationRequestInfo: info,
    certificationRequestInfoRaw: tbs.buffer.slice(tbs.byteOffset, tbs.byteOffset + tbs.byteLength),
    signatureAlgorithm:
      key.type === 'ec' ? new asn.AlgorithmIdentifier({ algorithm: OID.ecdsaWithSha256 }) : new asn.AlgorithmIdentifier({ algorithm: OID.sha256WithRsa, parameters: null }),
    signature: new Uint8Array(sign('sha256', tbs, key.privateKey)).buffer,
  });
  return encodePem('CERTIFICATE REQUEST', Buffer.from(AsnConvert.serialize(request)));
}

/** DER of the first `label` PEM block of `pem`; undefined when there is none. */
export function pemToDer(pem: string, label: string): Buffer | undefined {
  return decodePemBlocks(pem).find((b) => b.type === label)?.bytes;
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
