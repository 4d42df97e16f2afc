// Parsing and verifying a PKCS#10 certificate request (spec.request), synchronously: the subject
// and SANs are read by our strict DER reader (pkcs10.ts), the self-signature is checked with
// node:crypto; @peculiar/x509's reading of it is made only when the signer asks for it.

import 'reflect-metadata';
import { verify as cryptoVerify, type KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { LRUCache } from 'lru-cache';
import { firstPemBlock } from '../../common/util/pem.js';
import { userMessage } from '../../common/util/errors.js';
import { DerError } from './der-reader.js';
import { readPkcs10, type Pkcs10Parts } from './pkcs10.js';
import { publicKeyOf } from './spki-key.js';

export interface ParsedCsr {
  readonly commonName: string;
  readonly organizations: readonly string[];
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly emailAddresses: readonly string[];
  readonly uris: readonly string[];
  /** The request as @peculiar/x509 reads it, made on first call (only the signer needs it). */
  x509(): x509.Pkcs10CertificateRequest;
  readonly der: Buffer;
}

export class CsrParseError extends Error {}

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

function verifySignature(parts: Pkcs10Parts): void {
  const oid = parts.signatureOid;
  if (!(oid in SIG_HASH))
    throw new CsrParseError(
      `x509: cannot verify signature: algorithm unimplemented (${oid || 'unknown'})`,
    );
  const hash = SIG_HASH[oid] ?? null;
  let key: KeyObject;
  try {
    key = publicKeyOf(parts.spki);
  } catch (e) {
    throw new CsrParseError(`x509: unsupported public key: ${userMessage(e)}`);
  }
  let ok: boolean;
  try {
    ok = cryptoVerify(hash, parts.signed, key, parts.signature);
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

/** Parses DER bytes of a PKCS#10 request and checks its signature. Throws CsrParseError. */
export function parseCsrDer(der: Buffer): ParsedCsr {
  let parts: Pkcs10Parts;
  try {
    parts = readPkcs10(der);
  } catch (e) {
    if (e instanceof DerError)
      throw new CsrParseError(`x509: malformed certificate request: ${e.message}`);
    throw e;
  }
  verifySignature(parts);
  let made: x509.Pkcs10CertificateRequest | undefined;
  return Object.freeze({
    commonName: parts.commonNames[0] ?? '',
    organizations: Object.freeze(parts.organizations),
    dnsNames: Object.freeze(parts.dnsNames),
    ipAddresses: Object.freeze(parts.ipAddresses),
    emailAddresses: Object.freeze(parts.emailAddresses),
    uris: Object.freeze(parts.uris),
    x509: () => (made ??= new x509.Pkcs10CertificateRequest(der)),
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
