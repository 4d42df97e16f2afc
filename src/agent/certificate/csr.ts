// Certificate signing requests: the PEM PKCS#10 request (RFC 2986), built with asn1js and signed
// with node:crypto; and the deterministic bootstrap name the reference uses, so a restarted
// bootstrap finds its own CSR. asn1js alone, not the @peculiar/asn1-* schema classes over it:
// this is on the bootstrap path, and loading and first use of those (their decorators build a
// schema per class) cost start-up about 25 ms more than the request takes with asn1js.
import { createHash, sign } from 'node:crypto';
import { isIP } from 'node:net';
import type * as X509 from '@peculiar/x509';
import type * as Asn1js from 'asn1js';
import { publicKeyDer, type PrivateKey } from './keys.js';
import { ipAddressBytes } from './ip-bytes.js';
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
  lib.cryptoProvider.set(
    (await import('node:crypto')).webcrypto as unknown as Parameters<
      typeof lib.cryptoProvider.set
    >[0],
  );
  return lib;
}

/** asn1js, loaded on first use (bootstrap starts loading it while its files and key are read). */
export async function asn1lib(): Promise<typeof Asn1js> {
  const { asn1js } = await import('./asn1js-lib.js');
  return asn1js;
}

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  extensionRequest: '1.2.840.113549.1.9.14',
  subjectAltName: '2.5.29.17',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  sha256WithRsa: '1.2.840.113549.1.1.11',
};

/** Context-specific tags: [0] of the attributes, [2] dNSName and [7] iPAddress of a GeneralName. */
const CONTEXT = 3;

/** PrintableString's alphabet; other names are UTF8String (as Go's encoding/asn1 chooses). */
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/**
 * Name ::= SEQUENCE OF RelativeDistinguishedName, one attribute per RDN, in the template's order.
 */
function subjectName(asn: typeof Asn1js, template: CsrTemplate): Asn1js.Sequence {
  const rdn = (type: string, value: string): Asn1js.Set =>
    new asn.Set({
      value: [
        new asn.Sequence({
          value: [
            new asn.ObjectIdentifier({ value: type }),
            PRINTABLE.test(value)
              ? new asn.PrintableString({ value })
              : new asn.Utf8String({ value }),
          ],
        }),
      ],
    });
  return new asn.Sequence({
    value: [
      rdn(OID.commonName, template.commonName),
      ...template.organizations.map((o) => rdn(OID.organization, o)),
    ],
  });
}

/**
 * The [0] attribute set: an extensionRequest with the subjectAltName when there are SANs, else
 * empty.
 */
function requestAttributes(asn: typeof Asn1js, template: CsrTemplate): Asn1js.Constructed {
  const names = [
    ...(template.dnsNames ?? []).map(
      (d) =>
        new asn.Primitive({
          idBlock: { tagClass: CONTEXT, tagNumber: 2 },
          valueHex: Buffer.from(d, 'ascii'),
        }),
    ),
    ...(template.ipAddresses ?? []).map(
      (ip) =>
        new asn.Primitive({
          idBlock: { tagClass: CONTEXT, tagNumber: 7 },
          valueHex: ipAddressBytes(ip),
        }),
    ),
  ];
  const attributes: Asn1js.Sequence[] = [];
  if (names.length) {
    // Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE (left out), extnValue OCTET
    // STRING }
    const san = new asn.Sequence({
      value: [
        new asn.ObjectIdentifier({ value: OID.subjectAltName }),
        new asn.OctetString({ valueHex: new asn.Sequence({ value: names }).toBER() }),
      ],
    });
    attributes.push(
      new asn.Sequence({
        value: [
          new asn.ObjectIdentifier({ value: OID.extensionRequest }),
          new asn.Set({ value: [new asn.Sequence({ value: [san] })] }),
        ],
      }),
    );
  }
  return new asn.Constructed({ idBlock: { tagClass: CONTEXT, tagNumber: 0 }, value: attributes });
}

/** The key's SubjectPublicKeyInfo as an asn1js block that encodes back to the same DER. */
function subjectPublicKeyInfo(asn: typeof Asn1js, key: PrivateKey): Asn1js.AsnType {
  const der = publicKeyDer(key);
  const parsed = asn.fromBER(der);
  if (parsed.offset === -1 || !Buffer.from(parsed.result.toBER()).equals(der))
    throw new Error('the public key does not encode back to its own DER');
  return parsed.result;
}

/** A PEM `CERTIFICATE REQUEST` for the template, signed with `key` (SHA-256). */
export async function createCsrPem(key: PrivateKey, template: CsrTemplate): Promise<string> {
  const asn = await asn1lib();
  const info = new asn.Sequence({
    value: [
      new asn.Integer({ value: 0 }),
      subjectName(asn, template),
      subjectPublicKeyInfo(asn, key),
      requestAttributes(asn, template),
    ],
  });
  const tbs = Buffer.from(info.toBER());
  const algorithm =
    key.type === 'ec'
      ? new asn.Sequence({ value: [new asn.ObjectIdentifier({ value: OID.ecdsaWithSha256 })] })
      : new asn.Sequence({
          value: [new asn.ObjectIdentifier({ value: OID.sha256WithRsa }), new asn.Null()],
        });
  const request = new asn.Sequence({
    value: [info, algorithm, new asn.BitString({ valueHex: sign('sha256', tbs, key.privateKey) })],
  });
  return encodePem('CERTIFICATE REQUEST', Buffer.from(request.toBER()));
}

/** The SubjectPublicKeyInfo DER of a PKCS#10 request's DER; throws when it is not one. */
export async function requestPublicKeyDer(der: Buffer): Promise<Buffer> {
  const asn = await asn1lib();
  const parsed = asn.fromBER(der);
  const request = parsed.offset === -1 ? undefined : parsed.result;
  const info = request instanceof asn.Sequence ? request.valueBlock.value[0] : undefined;
  const spki = info instanceof asn.Sequence ? info.valueBlock.value[2] : undefined;
  if (!(spki instanceof asn.Sequence)) throw new Error('not a PKCS#10 certification request');
  return Buffer.from(spki.valueBeforeDecodeView);
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
export function bootstrapCsrName(
  key: PrivateKey,
  commonName: string,
  organizations: string[],
  usages: string[],
): string {
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
  return key.type === 'rsa'
    ? ['digital signature', 'key encipherment', 'client auth']
    : ['digital signature', 'client auth'];
}

export function servingUsages(key: PrivateKey): string[] {
  return key.type === 'rsa'
    ? ['digital signature', 'key encipherment', 'server auth']
    : ['digital signature', 'server auth'];
}

/** SANs for a serving certificate: host names as DNS names, IPs as IPs; deduped and sorted. */
export function servingSans(
  hostnames: string[],
  addresses: string[],
): { dnsNames: string[]; ipAddresses: string[] } {
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
