// Fuzz of plat-apiserver's PKCS#10 reader (src/apiserver/csr/pkcs10.ts, request.ts): requests
// made by @peculiar/x509 with random subjects and subjectAltNames read the same through our
// strict DER reader as through @peculiar/x509 itself; on random bytes, and on a real request
// with any byte changed, parsing returns a request or throws CsrParseError, nothing else.
// Inputs per property: fuzzParams() (FUZZ_RUNS for a long run).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import fc from 'fast-check';
import { CsrParseError, parseCsrDer } from '../../src/apiserver/csr/request.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';

const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const keys = (await webcrypto.subtle.generateKey(alg, true, [
  'sign',
  'verify',
])) as webcrypto.CryptoKeyPair;

// RDN values @peculiar's name parser takes without quoting: letters, digits, a few marks, any
// non-ASCII letter (UTF8String)
const value = fc
  .array(fc.constantFrom(...'abcXYZ019 -_.:@éλ中'.split('')), { minLength: 1, maxLength: 12 })
  .map((a) => a.join('').trim())
  .filter((v) => v !== '');
const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((t) => t.join('.'));
const ipv6 = fc
  .array(fc.constantFrom(0, 0, 0, 1, 0xdb8, 0xffff, 0x2001), { minLength: 8, maxLength: 8 })
  .map((g) => g.map((x) => x.toString(16)).join(':'));
const dns = fc
  .array(fc.constantFrom(...'abcxyz09'.split('')), { minLength: 1, maxLength: 10 })
  .map((a) => `${a.join('')}.example`);

interface Shape {
  cn: string[];
  o: string[];
  dns: string[];
  ip: string[];
  email: string[];
  uri: string[];
}

const shape: fc.Arbitrary<Shape> = fc.record({
  cn: fc.array(value, { maxLength: 2 }),
  o: fc.array(value, { maxLength: 3 }),
  dns: fc.array(dns, { maxLength: 3 }),
  ip: fc.array(fc.oneof(ipv4, ipv6), { maxLength: 3 }),
  email: fc.array(
    dns.map((d) => `me@${d}`),
    { maxLength: 2 },
  ),
  uri: fc.array(
    dns.map((d) => `spiffe://${d}/x`),
    { maxLength: 2 },
  ),
});

async function requestOf(s: Shape): Promise<Buffer> {
  const name = [...s.o.map((v) => `O=${v}`), ...s.cn.map((v) => `CN=${v}`)].join(', ');
  const sans: x509.JsonGeneralNames = [
    ...s.dns.map((v) => ({ type: 'dns' as const, value: v })),
    ...s.ip.map((v) => ({ type: 'ip' as const, value: v })),
    ...s.email.map((v) => ({ type: 'email' as const, value: v })),
    ...s.uri.map((v) => ({ type: 'url' as const, value: v })),
  ];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    ...(name === '' ? {} : { name }),
    keys,
    signingAlgorithm: alg,
    extensions: sans.length > 0 ? [new x509.SubjectAlternativeNameExtension(sans)] : [],
  });
  return Buffer.from(csr.rawData);
}

/** What @peculiar/x509 reads from the same bytes. */
function theirs(der: Buffer): Record<string, unknown> {
  const csr = new x509.Pkcs10CertificateRequest(der);
  const out = {
    dns: [] as string[],
    ip: [] as string[],
    email: [] as string[],
    uri: [] as string[],
  };
  const raw = csr.getExtension('2.5.29.17');
  if (raw !== null)
    for (const n of new x509.SubjectAlternativeNameExtension(raw.rawData).names.items) {
      if (n.type === 'dns') out.dns.push(n.value);
      else if (n.type === 'ip') out.ip.push(n.value);
      else if (n.type === 'email') out.email.push(n.value);
      else if (n.type === 'url') out.uri.push(n.value);
    }
  return {
    commonName: csr.subjectName.getField('CN')[0] ?? '',
    organizations: csr.subjectName.getField('O'),
    ...out,
  };
}

test('random requests read the same as @peculiar/x509 reads them', async () => {
  await fc.assert(
    fc.asyncProperty(shape, async (s) => {
      const der = await requestOf(s);
      const ours = parseCsrDer(der);
      const want = theirs(der);
      assert.deepEqual(
        {
          commonName: ours.commonName,
          organizations: [...ours.organizations],
          dns: [...ours.dnsNames],
          ip: [...ours.ipAddresses],
          email: [...ours.emailAddresses],
          uri: [...ours.uris],
        },
        { ...want, ip: (want['ip'] as string[]).map(canonicalIp) },
      );
    }),
    fuzzParams(60),
  );
});

/** An address as Go prints it (the form ours gives): compressed IPv6, dotted IPv4-mapped. */
function canonicalIp(a: string): string {
  if (!a.includes(':')) return a;
  const u = new URL(`http://[${a}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(u);
  if (mapped === null) return u;
  const hi = parseInt(mapped[1] ?? '0', 16);
  const lo = parseInt(mapped[2] ?? '0', 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

function onlyCsrErrors(der: Buffer): void {
  try {
    parseCsrDer(der);
  } catch (err) {
    if (!(err instanceof CsrParseError)) throw err;
  }
}

test('random bytes: a request or a CsrParseError, never anything else', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 400 }), (a) => onlyCsrErrors(Buffer.from(a))),
    fuzzParams(1000),
  );
});

test('a real request with one byte changed: a request or a CsrParseError', async () => {
  const der = await requestOf({
    cn: ['system:node:a'],
    o: ['system:nodes'],
    dns: ['a.example'],
    ip: ['10.0.0.1', '2001:db8::1'],
    email: [],
    uri: [],
  });
  fc.assert(
    fc.property(fc.nat(der.length - 1), fc.nat(255), (at, b) => {
      const copy = Buffer.from(der);
      copy[at] = b;
      onlyCsrErrors(copy);
    }),
    fuzzParams(2000),
  );
});
