import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getCiphers } from 'node:tls';
import {
  TLS_CIPHER_SUITES,
  tlsOptionsFor,
  isTlsCipherSuite,
} from '../../../../src/agent/config/tls-ciphers.js';

test('every secure suite maps to a cipher this Node/OpenSSL knows', () => {
  const known = new Set(getCiphers().map((c) => c.toLowerCase()));
  for (const [go, info] of Object.entries(TLS_CIPHER_SUITES)) {
    if (info.insecure) continue;
    assert.ok(
      known.has(info.openssl.toLowerCase()),
      `${go} -> ${info.openssl} is not known to OpenSSL`,
    );
  }
});

test('tls options for the server', () => {
  assert.deepEqual(tlsOptionsFor([], ''), {});
  assert.deepEqual(
    tlsOptionsFor(
      [
        'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
        'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
        'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256',
      ],
      'VersionTLS12',
    ),
    {
      ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305',
      minVersion: 'TLSv1.2',
    },
  );
  assert.equal(
    isTlsCipherSuite('ECDHE-RSA-AES128-GCM-SHA256'),
    false,
    'OpenSSL names are not config names',
  );
});
