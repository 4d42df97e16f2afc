// The strict DER reader under CSR parsing: IP addresses printed as Go's net.IP prints them,
// malformed DER refused with what is wrong and where, public keys built the short way equal to
// the ones OpenSSL decodes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { ipText } from '../../../../src/apiserver/csr/pkcs10.js';
import { publicKeyOf } from '../../../../src/apiserver/csr/spki-key.js';
import { DerError, readTlv, oidOf, stringOf } from '../../../../src/apiserver/csr/der-reader.js';
import { CsrParseError, parseCsrDer } from '../../../../src/apiserver/csr/request.js';
import { firstPemBlock } from '../../../../src/common/util/pem.js';
import { makeCsrPem } from '../../../helpers/apiserver-fixtures.js';

const ip = (hex: string): string => ipText(Buffer.from(hex.replaceAll(':', ''), 'hex'));

test('IP addresses as Go prints them', () => {
  assert.equal(ipText(Buffer.of(10, 0, 0, 1)), '10.0.0.1');
  assert.equal(ip('00000000:00000000:0000ffff:01020304'), '1.2.3.4');
  assert.equal(ip('20010db8:00000000:00000000:00000001'), '2001:db8::1');
  assert.equal(ip('00000000:00000000:00000000:00000001'), '::1');
  assert.equal(ip('00000000:00000000:00000000:00000000'), '::');
  assert.equal(ip('00010000:00000000:00000000:00000000'), '1::');
  // one zero group is not shortened; of two equal runs the first is
  assert.equal(ip('20010db8:00000001:00010001:00010001'), '2001:db8:0:1:1:1:1:1');
  assert.equal(ip('20010db8:00000000:00010000:00000001'), '2001:db8::1:0:0:1');
  assert.throws(() => ipText(Buffer.of(1, 2, 3)), new DerError('an IP address of 3 bytes'));
});

test('malformed DER is refused with what and where', () => {
  const cases: [number[], string][] = [
    [[0x30], 'truncated element at byte 0'],
    [[0x30, 0x80], 'indefinite length (not DER) at byte 0'],
    [[0x30, 0x85, 1, 1, 1, 1, 1], 'length over 4 bytes at byte 0'],
    [[0x30, 0x81, 0x05, 0, 0, 0, 0, 0], 'length not in its shortest form at byte 0'],
    [[0x30, 0x03, 0x00], 'element longer than its container at byte 0'],
    [[0x1f, 0x01, 0x00], 'tag numbers above 30 are not used here at byte 0'],
  ];
  for (const [bytes, message] of cases)
    assert.throws(() => readTlv(Buffer.from(bytes), 0), new DerError(message));
  const oid = Buffer.from('06022a86', 'hex');
  assert.throws(
    () => oidOf(oid, readTlv(oid, 0)),
    new DerError('object identifier ends inside an arc at byte 0'),
  );
  const cn = Buffer.from('060355040a', 'hex');
  assert.equal(oidOf(cn, readTlv(cn, 0)), '2.5.4.10');
  const bmp = Buffer.from('1e0400e90041', 'hex');
  assert.equal(stringOf(bmp, readTlv(bmp, 0)), 'éA');
  const universal = Buffer.from('1c08000000410001f600', 'hex');
  assert.equal(stringOf(universal, readTlv(universal, 0)), 'A\u{1f600}');
  const surrogate = Buffer.from('1c040000d800', 'hex');
  assert.throws(
    () => stringOf(surrogate, readTlv(surrogate, 0)),
    new DerError('UniversalString with a value that is no character at byte 0'),
  );
  const int = Buffer.from('020101', 'hex');
  assert.throws(() => stringOf(int, readTlv(int, 0)), /tag 0x2 is not a string type at byte 0/);
});

test('a request that is not one: the reference prefix, then our reason', () => {
  assert.throws(
    () => parseCsrDer(Buffer.from('3003020100', 'hex')),
    new CsrParseError(
      'x509: malformed certificate request: certificationRequestInfo: tag 0x2 where 0x30 belongs at byte 2',
    ),
  );
  assert.throws(
    () => parseCsrDer(Buffer.from('300000', 'hex')),
    new CsrParseError('x509: malformed certificate request: bytes after the request at byte 2'),
  );
});

test('a key built from its JWK equals the key OpenSSL decodes; a point off its curve is refused', () => {
  const kinds = [
    generateKeyPairSync('ec', { namedCurve: 'P-256' }),
    generateKeyPairSync('ec', { namedCurve: 'P-384' }),
    generateKeyPairSync('ec', { namedCurve: 'P-521' }),
    generateKeyPairSync('ec', { namedCurve: 'secp256k1' }),
    generateKeyPairSync('rsa', { modulusLength: 1024 }),
    generateKeyPairSync('ed25519'),
  ];
  for (const { publicKey } of kinds) {
    const spki = publicKey.export({ format: 'der', type: 'spki' });
    assert.ok(publicKeyOf(spki).equals(publicKey), publicKey.asymmetricKeyType);
  }
  const p256 = Buffer.from(
    kinds[0]?.publicKey.export({ format: 'der', type: 'spki' }) ?? Buffer.alloc(0),
  );
  const last = p256.length - 1;
  p256[last] = (p256[last] ?? 0) ^ 1;
  assert.throws(() => publicKeyOf(p256));
});

test("a request whose signature does not verify is refused with the reference's words", async () => {
  // kube-apiserver 1.32 answers such a create (an ECDSA P-256 request made by openssl, one byte
  // of its signature changed) with 422: `spec.request: Invalid value: []byte{...}: x509: ECDSA
  // verification failure`.
  const { csrPem } = await makeCsrPem({ cn: 'signed', orgs: ['o'] });
  const der = firstPemBlock(csrPem)?.bytes;
  assert.ok(der !== undefined);
  assert.equal(parseCsrDer(der).commonName, 'signed');
  const bad = Buffer.from(der);
  // The last bytes are the signature's S integer.
  bad[bad.length - 3] = (bad[bad.length - 3] ?? 0) ^ 0x55;
  assert.throws(
    () => parseCsrDer(bad),
    (e: unknown) => e instanceof CsrParseError && e.message === 'x509: ECDSA verification failure',
  );
});
