// --encryption-provider-config on the real plat-apiserver: nothing readable in the SQLite file,
// key rotation, identity first then aescbc, a lost key.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { encryptionFile, event, key, MARK, rawValues } from './encryption-fixtures.js';
import { startPlatApiserver, tempDir } from './plat-apiserver.js';

test('values are encrypted at rest; rotation and identity-first migration keep data readable', async (t) => {
  const tmp = tempDir('enc-it-');
  t.after(() => tmp.cleanup());
  const first = encryptionFile(tmp.dir, 'first.yaml', [
    {
      resources: ['events', 'namespaces'],
      providers: [{ aescbc: { keys: [{ name: 'k1', secret: key(1) }] } }],
    },
    { resources: ['*.*'], providers: [{ secretbox: { keys: [{ name: 'all', secret: key(2) }] } }] },
  ]);
  let s = await startPlatApiserver(tmp.dir, ['--encryption-provider-config', first]);
  try {
    assert.equal(
      (
        await s.call('POST', '/api/v1/namespaces', {
          body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'enc' } },
        })
      ).status,
      201,
    );
    assert.equal(
      (await s.call('POST', '/api/v1/namespaces/enc/events', { body: event('e1') })).status,
      201,
    );
    const got = await s.call('GET', '/api/v1/namespaces/enc/events/e1');
    assert.equal(got.body.message, MARK);
    // A CSR (group certificates.platform.io) falls under "*.*".
    const csrPem = execFileSync(
      'openssl',
      [
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        '/dev/null',
        '-subj',
        `/CN=${MARK}`,
      ],
      { encoding: 'utf8' },
    );
    const csr = await s.call(
      'POST',
      '/apis/certificates.platform.io/v1/certificatesigningrequests',
      {
        body: {
          apiVersion: 'certificates.platform.io/v1',
          kind: 'CertificateSigningRequest',
          metadata: { name: 'csr-enc' },
          spec: {
            request: Buffer.from(csrPem).toString('base64'),
            signerName: 'example.com/test',
            usages: ['client auth'],
          },
        },
      },
    );
    assert.equal(csr.status, 201, JSON.stringify(csr.body));
  } finally {
    await s.stop();
  }
  assert.ok(!s.output().includes(key(1)) && !s.output().includes(key(2)), 'keys never in the log');
  const raw = rawValues(s.dataDir);
  assert.ok(!raw.some((v) => v.includes(MARK)), 'no plaintext in the database');
  assert.ok(
    raw.some((v) => v.startsWith('plat:enc:aescbc:v1:k1:')),
    'event values carry the aescbc prefix',
  );
  assert.ok(
    raw.some((v) => v.startsWith('plat:enc:secretbox:v1:all:')),
    'the CSR is sealed by the *.* entry',
  );
  assert.ok(!raw.some((v) => v.includes(key(1))), 'keys are not stored');

  // Rotation: a new key first, the old one still reads; new writes use the new key.
  const rotated = encryptionFile(tmp.dir, 'rotated.yaml', [
    {
      resources: ['events', 'namespaces'],
      providers: [
        {
          aescbc: {
            keys: [
              { name: 'k2', secret: key(3) },
              { name: 'k1', secret: key(1) },
            ],
          },
        },
      ],
    },
    { resources: ['*.*'], providers: [{ secretbox: { keys: [{ name: 'all', secret: key(2) }] } }] },
  ]);
  s = await startPlatApiserver(tmp.dir, ['--encryption-provider-config', rotated]);
  try {
    assert.equal((await s.call('GET', '/api/v1/namespaces/enc/events/e1')).body.message, MARK);
    assert.equal(
      (await s.call('POST', '/api/v1/namespaces/enc/events', { body: event('e2') })).status,
      201,
    );
  } finally {
    await s.stop();
  }
  assert.ok(rawValues(s.dataDir).some((v) => v.startsWith('plat:enc:aescbc:v1:k2:')));

  // Identity first, then aescbc: old encrypted values read, new values are written in clear.
  const identityFirst = encryptionFile(tmp.dir, 'identity.yaml', [
    {
      resources: ['events', 'namespaces'],
      providers: [
        { identity: {} },
        {
          aescbc: {
            keys: [
              { name: 'k2', secret: key(3) },
              { name: 'k1', secret: key(1) },
            ],
          },
        },
      ],
    },
  ]);
  s = await startPlatApiserver(tmp.dir, ['--encryption-provider-config', identityFirst]);
  try {
    assert.equal((await s.call('GET', '/api/v1/namespaces/enc/events/e1')).body.message, MARK);
    assert.equal((await s.call('GET', '/api/v1/namespaces/enc/events/e2')).body.message, MARK);
    assert.equal(
      (await s.call('POST', '/api/v1/namespaces/enc/events', { body: event('e3') })).status,
      201,
    );
  } finally {
    await s.stop();
  }
  assert.ok(
    rawValues(s.dataDir).some((v) => v.includes(MARK)),
    'identity writes plaintext',
  );

  // Without the old key the encrypted events cannot be read, and the error says why.
  const lost = encryptionFile(tmp.dir, 'lost.yaml', [
    { resources: ['events'], providers: [{ aescbc: { keys: [{ name: 'k9', secret: key(9) }] } }] },
  ]);
  s = await startPlatApiserver(tmp.dir, ['--encryption-provider-config', lost]);
  try {
    const r = await s.call('GET', '/api/v1/namespaces/enc/events/e1');
    assert.equal(r.status, 500);
    assert.match(String(r.body.message), /aescbc v1 key "k1"/);
    assert.ok(!JSON.stringify(r.body).includes(key(9)));
  } finally {
    await s.stop();
  }
});
