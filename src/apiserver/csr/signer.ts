// The `csrsigning` controller's signing step for the three well-known signers: checks the request
// against the signer's rules (a failure becomes a Failed condition with reason
// SignerValidationFailure), works out the lifetime, and issues the certificate from the CA.

import type { Names } from '../../common/names.js';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { randomSerialHex } from './ca.js';
import { importSigningKey } from './keys.js';
import { nodeClientProblem } from './approver.js';
import { parseCsrPem, type ParsedCsr } from './request.js';
import { userMessage } from '../../common/util/errors.js';

export interface SignOptions {
  readonly csrPem: string | Uint8Array;
  readonly signerName: string;
  readonly names: Names;
  readonly usages: readonly string[];
  readonly expirationSeconds?: number;
  readonly ca: { readonly certPem: string; readonly keyPem: string };
  /** --cluster-signing-duration in seconds. */
  readonly maxDurationSeconds: number;
  readonly now: Date;
}

export type SignResult =
  | { readonly certificatePem: string }
  | { readonly failed: { readonly reason: 'SignerValidationFailure'; readonly message: string } };

export class UnknownSignerError extends Error {}

const MIN_DURATION_S = 10 * 60;
const BACKDATE_MS = 5 * 60 * 1000;
const SHORT_S = 8 * 60 * 60;

export function wellKnownSigners(names: Names): {
  client: string;
  platletClient: string;
  platletServing: string;
} {
  return {
    client: names.signers.apiClient,
    platletClient: names.signers.agentClient,
    platletServing: names.signers.agentServing,
  };
}

export function isWellKnownSigner(signerName: string, names: Names): boolean {
  return Object.values(wellKnownSigners(names)).includes(signerName);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  return sa.size === a.length && sa.size === b.length && b.every((x) => sa.has(x));
}

const SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];
const SERVING_USAGES_NO_RSA = ['digital signature', 'server auth'];

function servingProblem(p: ParsedCsr, usages: readonly string[]): string | undefined {
  if (p.organizations.length !== 1 || p.organizations[0] !== 'system:nodes')
    return 'subject organization is not system:nodes';
  if (p.dnsNames.length === 0 && p.ipAddresses.length === 0)
    return 'DNS or IP subjectAltName is required';
  if (p.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (p.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!p.commonName.startsWith('system:node:'))
    return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, SERVING_USAGES) && !sameSet(usages, SERVING_USAGES_NO_RSA)) {
    return `usages did not match [${[...SERVING_USAGES].sort().join(' ')}]`;
  }
  return undefined;
}

function clientProblem(usages: readonly string[]): string | undefined {
  let hasClientAuth = false;
  for (const u of usages) {
    if (u === 'client auth') hasClientAuth = true;
    else if (u !== 'digital signature' && u !== 'key encipherment')
      return `invalid usage for client certificate: ${u}`;
  }
  if (!hasClientAuth) return 'missing required usage for client certificate: client auth';
  return undefined;
}

/** Why the signer must refuse this request, or undefined when it may sign. */
export function signerProblem(
  signerName: string,
  names: Names,
  parsed: ParsedCsr,
  usages: readonly string[],
): string | undefined {
  const s = wellKnownSigners(names);
  if (signerName === s.platletServing) return servingProblem(parsed, usages);
  if (signerName === s.platletClient) return nodeClientProblem(parsed, usages);
  if (signerName === s.client) return clientProblem(usages);
  throw new UnknownSignerError(
    `signer ${JSON.stringify(signerName)} is not a well-known signer of this server`,
  );
}

/**
 * The lifetime: expirationSeconds capped at the maximum, at least 10 minutes; the maximum when
 * unset.
 */
export function certificateDurationSeconds(
  expirationSeconds: number | undefined,
  maxDurationSeconds: number,
): number {
  if (expirationSeconds === undefined) return maxDurationSeconds;
  if (expirationSeconds > maxDurationSeconds) return maxDurationSeconds;
  if (expirationSeconds < MIN_DURATION_S) return MIN_DURATION_S;
  return expirationSeconds;
}

const KEY_USAGE: Readonly<Record<string, x509.KeyUsageFlags>> = {
  signing: x509.KeyUsageFlags.digitalSignature,
  'digital signature': x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation,
  'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement,
  'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'cert sign': x509.KeyUsageFlags.keyCertSign,
  'crl sign': x509.KeyUsageFlags.cRLSign,
  'encipher only': x509.KeyUsageFlags.encipherOnly,
  'decipher only': x509.KeyUsageFlags.decipherOnly,
};

// Ordered as the reference sorts extended key usages (by its enum value).
const EXT_KEY_USAGES: readonly [string, string][] = [
  ['any', '2.5.29.37.0'],
  ['server auth', '1.3.6.1.5.5.7.3.1'],
  ['client auth', '1.3.6.1.5.5.7.3.2'],
  ['code signing', '1.3.6.1.5.5.7.3.3'],
  ['email protection', '1.3.6.1.5.5.7.3.4'],
  ['s/mime', '1.3.6.1.5.5.7.3.4'],
  ['ipsec end system', '1.3.6.1.5.5.7.3.5'],
  ['ipsec tunnel', '1.3.6.1.5.5.7.3.6'],
  ['ipsec user', '1.3.6.1.5.5.7.3.7'],
  ['timestamping', '1.3.6.1.5.5.7.3.8'],
  ['ocsp signing', '1.3.6.1.5.5.7.3.9'],
  ['microsoft sgc', '1.3.6.1.4.1.311.10.3.3'],
  ['netscape sgc', '2.16.840.1.113730.4.1'],
];
const EKU_MAP = new Map(EXT_KEY_USAGES);

/** Maps usage strings to key usage flags and (sorted, de-duplicated) extended key usage OIDs. */
export function keyUsagesFromStrings(
  usages: readonly string[],
): { keyUsage: number; extKeyUsages: string[] } | { unrecognized: string[] } {
  let keyUsage = 0;
  const ekus = new Set<string>();
  const unrecognized: string[] = [];
  for (const u of usages) {
    const ku = KEY_USAGE[u];
    if (ku !== undefined) keyUsage |= ku;
    else if (EKU_MAP.has(u)) ekus.add(EKU_MAP.get(u) ?? '');
    else unrecognized.push(u);
  }
  if (unrecognized.length > 0) return { unrecognized };
  const order = [...new Set(EXT_KEY_USAGES.map(([, oid]) => oid))];
  return { keyUsage, extKeyUsages: order.filter((oid) => ekus.has(oid)) };
}

const failed = (message: string): SignResult => ({
  failed: { reason: 'SignerValidationFailure', message },
});

/**
 * Signs a request for one of the three well-known signers. Returns the certificate PEM or the
 * Failed condition facts; throws UnknownSignerError for any other signer and Error when the CA
 * cannot sign (expired, unreadable key).
 */
export async function signCertificate(opts: SignOptions): Promise<SignResult> {
  let parsed: ParsedCsr;
  try {
    parsed = parseCsrPem(opts.csrPem);
  } catch (e) {
    return failed(`unable to parse csr: ${userMessage(e)}`);
  }
  const problem = signerProblem(opts.signerName, opts.names, parsed, opts.usages);
  if (problem !== undefined) return failed(problem);
  const ku = keyUsagesFromStrings(opts.usages);
  if ('unrecognized' in ku)
    return failed(`unrecognized usage values: ${JSON.stringify(ku.unrecognized)}`);

  const caCert = new x509.X509Certificate(opts.ca.certPem);
  const now = opts.now.getTime();
  const ttlS = certificateDurationSeconds(opts.expirationSeconds, opts.maxDurationSeconds);
  const notBefore = new Date(now - BACKDATE_MS);
  let notAfter =
    ttlS < SHORT_S ? new Date(now + ttlS * 1000) : new Date(now + ttlS * 1000 - BACKDATE_MS);
  if (notAfter.getTime() >= caCert.notAfter.getTime()) notAfter = caCert.notAfter;
  if (notBefore.getTime() >= caCert.notAfter.getTime())
    throw new Error(`the signer has expired: NotAfter=${caCert.notAfter.toISOString()}`);
  if (now >= caCert.notAfter.getTime())
    throw new Error(
      `refusing to sign a certificate that expired in the past: ` +
        `NotAfter=${caCert.notAfter.toISOString()}`,
    );

  const signer = await importSigningKey(opts.ca.keyPem);
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  // an OR of KeyUsageFlags is a number to TypeScript; the library takes the bit set
  // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
  if (ku.keyUsage !== 0) extensions.push(new x509.KeyUsagesExtension(ku.keyUsage, true));
  if (ku.extKeyUsages.length > 0)
    extensions.push(new x509.ExtendedKeyUsageExtension(ku.extKeyUsages, false));
  const san = parsed.x509().getExtension('2.5.29.17');
  if (san !== null) extensions.push(new x509.Extension('2.5.29.17', false, san.value));
  extensions.push(await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey));

  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerialHex(),
    subject: new x509.Name(parsed.x509().subjectName.toArrayBuffer()),
    issuer: new x509.Name(caCert.subjectName.toArrayBuffer()),
    notBefore,
    notAfter,
    publicKey: parsed.x509().publicKey,
    signingKey: signer.key,
    signingAlgorithm: signer.signingAlgorithm,
    extensions,
  });
  return { certificatePem: cert.toString('pem') + '\n' };
}
