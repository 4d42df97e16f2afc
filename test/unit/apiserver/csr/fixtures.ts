// Test helpers: real PKCS#10 requests (ECDSA P-256 or RSA) with chosen subjects and SANs.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

export interface CsrSpec {
  cn?: string;
  o?: string[];
  dns?: string[];
  ips?: string[];
  emails?: string[];
  uris?: string[];
  rsa?: boolean;
}

export async function makeCsrPem(spec: CsrSpec = {}): Promise<string> {
  const alg =
    spec.rsa === true
      ? {
          name: 'RSASSA-PKCS1-v1_5',
          hash: 'SHA-256',
          modulusLength: 2048,
          publicExponent: new Uint8Array([1, 0, 1]),
        }
      : { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const name: x509.JsonName = [];
  if (spec.o !== undefined && spec.o.length > 0) name.push({ O: spec.o });
  name.push({ CN: [spec.cn ?? 'someone'] });
  const sans: x509.JsonGeneralNames = [
    ...(spec.dns ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(spec.ips ?? []).map((value) => ({ type: 'ip' as const, value })),
    ...(spec.emails ?? []).map((value) => ({ type: 'email' as const, value })),
    ...(spec.uris ?? []).map((value) => ({ type: 'url' as const, value })),
  ];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name,
    keys,
    signingAlgorithm: alg,
    extensions: sans.length > 0 ? [new x509.SubjectAlternativeNameExtension(sans)] : [],
  });
  return csr.toString('pem') + '\n';
}

export function b64(s: string): string {
  return Buffer.from(s).toString('base64');
}

export function csrObject(opts: {
  name?: string;
  requestPem: string;
  signerName?: string;
  usages?: string[];
  expirationSeconds?: number;
  status?: Record<string, unknown>;
}): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    request: b64(opts.requestPem),
    signerName: opts.signerName ?? 'platform.io/plat-apiserver-client-platlet',
    usages: opts.usages ?? ['digital signature', 'client auth'],
  };
  if (opts.expirationSeconds !== undefined) spec['expirationSeconds'] = opts.expirationSeconds;
  const obj: Record<string, unknown> = {
    apiVersion: 'certificates.platform.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: opts.name ?? 'csr-1' },
    spec,
  };
  if (opts.status !== undefined) obj['status'] = opts.status;
  return obj;
}
