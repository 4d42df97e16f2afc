// Parsing and verifying a PKCS#10 certificate request (spec.request), synchronously: the subject
// and SANs are read with @peculiar/x509, the self-signature is checked with node:crypto.

import 'reflect-metadata';
import { createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { LRUCache } from 'lru-cache';
import { firstPemBlock } from '../../common/util/pem.js';
import { userMessage } from '../../common/util/errors.js';

export interface ParsedCsr {
  readonly commonName: string;
  readonly organizations: readonly string[];
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly emailAddresses: readonly string[];
  readonly uris: readonly string[];
  readonly csr: x509.Pkcs10CertificateRequest;
  readonly der: Buffer;
}

export class CsrParseError extends Error {}

// Reads a DER length-prefixed element at `off`; returns [headerLength, contentLength].
function derElement(buf: Buffer, off: number): { header: number; length: number } {
  if (off + 2 > buf.length) throw new CsrParseError('x509: malformed certificate request');
  const first = buf[off + 1] ?? 0;
  if (first < 0x80) return { header: 2, length: first };
  const n = first & 0x7f;
  if (n === 0 || n > 4 || off + 2 + n > buf.length)
    throw new CsrParseError('x509: malformed certificate request');
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + (buf[off + 2 + i] ?? 0);
  return { header: 2 + n, length: len };
}

/** The DER bytes of CertificationRequestInfo (the signed part). */
function requestInfo(der: Buffer): Buffer {
  if (der[0] !== 0x30) throw new CsrParseError('x509: malformed certificate request');
  const outer = derElement(der, 0);
  const off = outer.header;
  if (der[off] !== 0x30) throw new CsrParseError('x509: malformed certificate request');
  const inner = derElement(der, off);
  const end = off + inner.header + inner.length;
  if (end > der.length) throw new CsrParseError('x509: malformed certificate request');
  return der.subarray(off, end);
}

const SIG_HASH: Readonly<Record<string, string | null>> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null, // Ed25519
};

function signatureOid(csr: x509.Pkcs10CertificateRequest): string {
  // The asn object is not public API (protected in @peculiar/x509's types); the algorithm OID is
  // read from the parsed structure, each level optional in case a version changes it.
  const asn = (csr as unknown as { asn?: { signatureAlgorithm?: { algorithm?: string } } }).asn;
  return asn?.signatureAlgorithm?.algorithm ?? '';
}

function verifySignature(csr: x509.Pkcs10CertificateRequest, der: Buffer): void {
  const oid = signatureOid(csr);
  if (!(oid in SIG_HASH))
    throw new CsrParseError(
      `x509: cannot verify signature: algorithm unimplemented (${oid || 'unknown'})`,
    );
  const hash = SIG_HASH[oid] ?? null;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' });
  } catch (e) {
    throw new CsrParseError(`x509: unsupported public key: ${userMessage(e)}`);
  }
  let ok: boolean;
  try {
    ok = cryptoVerify(hash, requestInfo(der), key, Buffer.from(csr.signature));
  } catch {
    ok = false;
  }
  if (!ok) {
    const alg =
      key.asymmetricKeyType === 'rsa'
        ? 'RSA'
        : key.asymmetricKeyType === 'ec'
          ? 'ECDSA'
          : 'Ed25519';
    throw new CsrParseError(`x509: ${alg} verification failure`);
  }
}

interface Sans {
  dns: string[];
  ip: string[];
  email: string[];
  uri: string[];
}

function sans(csr: x509.Pkcs10CertificateRequest): Sans {
  const out: Sans = { dns: [], ip: [], email: [], uri: [] };
  const raw = csr.getExtension('2.5.29.17');
  if (raw === null) return out;
  const ext =
    raw instanceof x509.SubjectAlternativeNameExtension
      ? raw
      : new x509.SubjectAlternativeNameExtension(raw.rawData);
  for (const n of ext.names.items) {
    if (n.type === 'dns') out.dns.push(n.value);
    else if (n.type === 'ip') out.ip.push(n.value);
    else if (n.type === 'email') out.email.push(n.value);
    else if (n.type === 'url') out.uri.push(n.value);
  }
  return out;
}

/** Parses DER bytes of a PKCS#10 request and checks its signature. Throws CsrParseError. */
export function parseCsrDer(der: Buffer): ParsedCsr {
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(der);
  } catch (e) {
    throw new CsrParseError(`x509: malformed certificate request: ${userMessage(e)}`);
  }
  let names: Sans;
  try {
    names = sans(csr);
  } catch (e) {
    throw new CsrParseError(`x509: cannot parse subjectAltName: ${userMessage(e)}`);
  }
  verifySignature(csr, der);
  return Object.freeze({
    commonName: csr.subjectName.getField('CN')[0] ?? '',
    organizations: Object.freeze(csr.subjectName.getField('O')),
    dnsNames: Object.freeze(names.dns),
    ipAddresses: Object.freeze(names.ip),
    emailAddresses: Object.freeze(names.email),
    uris: Object.freeze(names.uri),
    csr,
    der,
  });
}

/**
 * Requests parsed lately, by PEM text: one CSR is read by validation, admission, the approver
 * and the signer, and parsing (ASN.1 and the signature check) is most of a create's cost.
 * Only requests that parsed are kept; a result is frozen and shared.
 */
const parsedByPem = new LRUCache<string, ParsedCsr>({ max: 256 });

/**
 * Parses PEM text whose first block must be `CERTIFICATE REQUEST`, as the reference's ParseCSR.
 * Throws CsrParseError with the reference's messages.
 */
export function parseCsrPem(pem: string | Uint8Array): ParsedCsr {
  const text = typeof pem === 'string' ? pem : Buffer.from(pem).toString('latin1');
  const known = parsedByPem.get(text);
  if (known !== undefined) return known;
  const block = firstPemBlock(text);
  if (block?.type !== 'CERTIFICATE REQUEST') {
    throw new CsrParseError('PEM block type must be CERTIFICATE REQUEST');
  }
  const parsed = parseCsrDer(block.bytes);
  parsedByPem.set(text, parsed);
  return parsed;
}
