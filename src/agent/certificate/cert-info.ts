// What we read from a certificate: validity, subject, SANs, public key. node:crypto's
// X509Certificate does the parsing.
import { X509Certificate, createPublicKey } from 'node:crypto';
import { CertificateError, userMessage } from '../../common/util/errors.js';
import { pemBlocksOfType } from '../../common/util/pem.js';

export interface CertificateInfo {
  notBefore: Date;
  notAfter: Date;
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  /** SubjectPublicKeyInfo DER. */
  publicKeyDer: Buffer;
  x509: X509Certificate;
}

/** Every CERTIFICATE block in `pem`, in order. */
export function splitCertificates(pem: string): string[] {
  return pemBlocksOfType(pem, 'CERTIFICATE');
}

export function parseCertificate(pem: string, source = 'data'): CertificateInfo {
  const first = splitCertificates(pem)[0];
  if (!first) throw new CertificateError(`${source} holds no PEM CERTIFICATE block`);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(first);
  } catch (err) {
    throw new CertificateError(`${source}: the certificate cannot be parsed: ${userMessage(err)}`, {
      cause: err,
    });
  }
  const subject = parseName(x509.subject);
  const sans = (x509.subjectAltName ?? '').split(/,\s*/).filter(Boolean);
  return {
    notBefore: new Date(x509.validFrom),
    notAfter: new Date(x509.validTo),
    commonName: subject.CN?.[0] ?? '',
    organizations: subject.O ?? [],
    dnsNames: sans.filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4)),
    ipAddresses: sans
      .filter((s) => s.startsWith('IP Address:'))
      .map((s) => normalizeIp(s.slice(11))),
    publicKeyDer: createPublicKey(x509.publicKey.export({ type: 'spki', format: 'pem' })).export({
      type: 'spki',
      format: 'der',
    }),
    x509,
  };
}

function parseName(name: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const line of name.split('\n')) {
    const i = line.indexOf('=');
    if (i <= 0) continue;
    const k = line.slice(0, i);
    // Multi-valued RDNs are joined with '+' by node.
    for (const v of line.slice(i + 1).split('+')) (out[k] ??= []).push(v);
  }
  return out;
}

/** Canonical text of an IP (IPv6 lower-case, compressed as node prints it). */
export function normalizeIp(ip: string): string {
  return ip.trim().toLowerCase();
}
