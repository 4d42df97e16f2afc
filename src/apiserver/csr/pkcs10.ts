// The parts of a PKCS#10 certificate request (RFC 2986) the API server decides on, read with the
// strict DER reader: the subject's CN and O values, the subjectAltName names of its extension
// request, the public key, and the signature with the bytes it covers. The signature itself is
// checked by request.ts.

import {
  childrenOf,
  contentOf,
  DerError,
  expectTag,
  oidOf,
  readTlv,
  stringOf,
  type Tlv,
} from './der-reader.js';

export interface Pkcs10Parts {
  readonly commonNames: string[];
  readonly organizations: string[];
  readonly dnsNames: string[];
  readonly ipAddresses: string[];
  readonly emailAddresses: string[];
  readonly uris: string[];
  /** SubjectPublicKeyInfo, DER. */
  readonly spki: Buffer;
  /** CertificationRequestInfo, DER: what the signature covers. */
  readonly signed: Buffer;
  readonly signatureOid: string;
  readonly signature: Buffer;
}

const SEQUENCE = 0x30;
const SET = 0x31;
const OID_CN = '2.5.4.3';
const OID_O = '2.5.4.10';
const OID_EXTENSION_REQUEST = '1.2.840.113549.1.9.14';
const OID_SAN = '2.5.29.17';

function bytes(der: Buffer, t: Tlv): Buffer {
  return der.subarray(t.start, t.end);
}

/** CN and O values of a Name, in order. */
function subjectOf(der: Buffer, name: Tlv, out: { cn: string[]; o: string[] }): void {
  for (const rdn of childrenOf(der, name)) {
    expectTag(rdn, SET, 'relative distinguished name', name.start);
    for (const atv of childrenOf(der, rdn)) {
      const [type, value] = childrenOf(der, expectTag(atv, SEQUENCE, 'attribute', rdn.start));
      const oid = oidOf(der, expectTag(type, 0x06, 'attribute type', atv.start));
      if (value === undefined) throw new DerError(`attribute without a value at byte ${atv.start}`);
      if (oid === OID_CN) out.cn.push(stringOf(der, value));
      else if (oid === OID_O) out.o.push(stringOf(der, value));
    }
  }
}

/** An IP address's text as Go prints it: dotted for IPv4 (also IPv4-mapped), RFC 5952 for IPv6. */
export function ipText(b: Buffer): string {
  const mapped =
    b.length === 16 && b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  if (b.length === 4 || mapped) return [...b.subarray(b.length - 4)].join('.');
  if (b.length !== 16) throw new DerError(`an IP address of ${b.length} bytes`);
  const groups = Array.from({ length: 8 }, (_, i) => b.readUInt16BE(i * 2));
  let best = { at: -1, len: 0 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.len < 2) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.len).join(':')}`;
}

/** The names of a subjectAltName extension's value. */
function sansOf(value: Buffer, out: Pkcs10Parts): void {
  const seq = expectTag(readTlv(value, 0), SEQUENCE, 'subjectAltName', 0);
  if (seq.end !== value.length) throw new DerError('bytes after subjectAltName');
  for (const n of childrenOf(value, seq)) {
    const text = (): string => contentOf(value, n).toString('latin1');
    if (n.tag === 0x81) out.emailAddresses.push(text());
    else if (n.tag === 0x82) out.dnsNames.push(text());
    else if (n.tag === 0x86) out.uris.push(text());
    else if (n.tag === 0x87) out.ipAddresses.push(ipText(contentOf(value, n)));
  }
}

/** The extension request's subjectAltName, if any, into `out`. */
function attributesOf(der: Buffer, attrs: Tlv, out: Pkcs10Parts): void {
  for (const attr of childrenOf(der, attrs)) {
    const [type, values] = childrenOf(der, expectTag(attr, SEQUENCE, 'attribute', attrs.start));
    const oid = oidOf(der, expectTag(type, 0x06, 'attribute type', attr.start));
    if (oid !== OID_EXTENSION_REQUEST) continue;
    const [extensions] = childrenOf(der, expectTag(values, SET, 'attribute values', attr.start));
    for (const ext of childrenOf(der, expectTag(extensions, SEQUENCE, 'extensions', attr.start))) {
      const parts = childrenOf(der, expectTag(ext, SEQUENCE, 'extension', ext.start));
      const id = oidOf(der, expectTag(parts[0], 0x06, 'extension id', ext.start));
      const value = expectTag(parts[parts.length - 1], 0x04, 'extension value', ext.start);
      if (id === OID_SAN) sansOf(contentOf(der, value), out);
    }
  }
}

/** Reads a request's DER; throws DerError for anything malformed. */
export function readPkcs10(der: Buffer): Pkcs10Parts {
  const top = expectTag(readTlv(der, 0), SEQUENCE, 'certificate request', 0);
  if (top.end !== der.length) throw new DerError(`bytes after the request at byte ${top.end}`);
  const [info, alg, sig] = childrenOf(der, top);
  const infoTlv = expectTag(info, SEQUENCE, 'certificationRequestInfo', top.start);
  const [version, subject, spki, attrs] = childrenOf(der, infoTlv);
  expectTag(version, 0x02, 'version', infoTlv.start);
  const names = { cn: [] as string[], o: [] as string[] };
  subjectOf(der, expectTag(subject, SEQUENCE, 'subject', infoTlv.start), names);
  const sigBits = contentOf(der, expectTag(sig, 0x03, 'signature', top.start));
  if (sigBits.length === 0 || sigBits[0] !== 0)
    throw new DerError('signature: a bit string with unused bits');
  const [algOid] = childrenOf(der, expectTag(alg, SEQUENCE, 'signatureAlgorithm', top.start));
  const out: Pkcs10Parts = {
    commonNames: names.cn,
    organizations: names.o,
    dnsNames: [],
    ipAddresses: [],
    emailAddresses: [],
    uris: [],
    spki: bytes(der, expectTag(spki, SEQUENCE, 'subjectPublicKeyInfo', infoTlv.start)),
    signed: bytes(der, infoTlv),
    signatureOid: oidOf(der, expectTag(algOid, 0x06, 'signature algorithm', top.start)),
    signature: sigBits.subarray(1),
  };
  if (attrs !== undefined)
    attributesOf(der, expectTag(attrs, 0xa0, 'attributes', infoTlv.start), out);
  return out;
}
