// Objects for plat-apiserver tests: CSR PEMs (ECDSA P-256 via @peculiar/x509) and CSR, Event,
// Node and Pod bodies.

import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKeyPair = webcrypto.CryptoKeyPair;

export interface CsrPemOptions {
  readonly cn: string;
  readonly orgs?: readonly string[];
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
}

export async function makeCsrPem(
  o: CsrPemOptions,
): Promise<{ csrPem: string; keys: CryptoKeyPair }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, [
    'sign',
    'verify',
  ])) as unknown as CryptoKeyPair;
  const parts: string[] = [];
  for (const org of o.orgs ?? []) parts.push(`O=${org}`);
  parts.push(`CN=${o.cn}`);
  const sans: x509.JsonGeneralNames = [
    ...(o.dnsNames ?? []).map((v) => ({ type: 'dns' as const, value: v })),
    ...(o.ipAddresses ?? []).map((v) => ({ type: 'ip' as const, value: v })),
  ];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: parts.join(', '),
    keys,
    signingAlgorithm: alg,
    extensions: sans.length > 0 ? [new x509.SubjectAlternativeNameExtension(sans)] : [],
  });
  return { csrPem: csr.toString('pem'), keys };
}

export function csrBody(
  name: string,
  csrPem: string,
  signerName: string,
  usages: readonly string[],
  extra: Record<string, unknown> = {},
  platformDomain = 'platform.io',
): Record<string, unknown> {
  return {
    apiVersion: `certificates.${platformDomain}/v1`,
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: {
      request: Buffer.from(csrPem).toString('base64'),
      signerName,
      usages: [...usages],
      ...extra,
    },
  };
}

export function eventBody(
  name: string,
  namespace: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace },
    involvedObject: { kind: 'Pod', name: 'p', namespace, apiVersion: 'v1' },
    reason: 'Started',
    message: 'started container',
    type: 'Normal',
    source: { component: 'nodeagent' },
    count: 1,
    ...extra,
  };
}

export function podBody(
  name: string,
  namespace: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: { containers: [{ name: 'c', image: 'busybox:1.36' }], ...extra },
  };
}

export function nodeBody(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
  };
}
