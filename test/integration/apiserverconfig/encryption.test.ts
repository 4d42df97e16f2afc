// --encryption-provider-config on the real plat-apiserver: nothing readable in the SQLite file,
// key rotation, identity first then aescbc, and a KMS v2 plugin (and what happens when it is down).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { stringify } from 'yaml';
import { startTestKmsPlugin } from '../../helpers/kms-plugin.js';
import { startPlatApiserver, tempDir } from './plat-apiserver.js';

const key = (n: number): string => Buffer.alloc(32, n).toString('base64');
const MARK = 'PLAINTEXT-MARKER-7f3a';

function encryptionFile(dir: string, name: string, resources: unknown[]): string {
  const p = join(dir, name);
  writeFileSync(p, stringify({ apiVersion: 'apiserver.config.platform.io/v1', kind: 'EncryptionConfiguration', resources }));
  return p;
}

/** Every stored value of the database, as latin1 text. */
function rawValues(dataDir: string): string[] {
  const db = new Database(join(dataDir, 'plat-apiserver.db'), { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    const out: string[] = [];
    for (const { name } of tables) {
      for (const row of db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]) {
        for (const v of Object.values(row)) {
          if (v instanceof Uint8Array) out.push(Buffer.from(v).toString('latin1'));
          else if (typeof v === 'string') out.push(v);
        }
      }
    }
    return out;
  } finally {
    db.close();
  }
}

const event = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name, namespace: 'enc' },
  involvedObject: { kind: 'Pod', namespace: 'enc', name: 'p' },
  reason: 'Test',
  message: MARK,
  type: 'Normal',
});

test('values are encrypted at rest; rotation and identity-first migration keep data readable', async (t) => {
  const tmp = tempDir('enc-it-');
  t.after(() => tmp.cleanup());
  const first = encryptionFile(tmp.dir, 'first.yaml', [
    { resources: ['events', 'namespaces'], providers: [{ aescbc: { keys: [{ name: 'k1', secret: key(1) }] } }] },
    { resources: ['*.*'], providers: [{ secretbox: { keys: [{ name: 'all', secret: key(2) }] } }] },
  ]);
  let s = await startPlatApiserver(tmp.dir, ['--encryption-provider-config', first]);
  try {
    assert.equal((await s.call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'enc' } } })).status, 201);
    assert.equal((await s.call('POST', '/api/v1/namespaces/enc/events', { body: event('e1') })).status, 201);
    const got = await s.call('GET', '/api/v1/namespaces/enc/events/e1');
    assert.equal(got.body.message, MARK);
    // A CSR (group certificates.platform.io) falls under "*.*".
    const csrPem = execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', '/dev/null', '-subj', `/CN=${MARK}`], { encoding: 'utf8' });
    const csr = await s.call('POST', '/apis/certificates.platform.io/v1/certificatesigningrequests', {
      body: { apiVersion: 'certificates.platform.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'csr-enc' }, spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'example.com/test', usages: ['client auth'] } },
    });
    assert.equal(csr.status, 201, JSON.stringify(csr.body));
  } finally {
    await s.stop();
  }
  assert.ok(!s.output().includes(key(1)) && !s.output().includes(key(2)), 'keys never in the log');
  const raw = rawValues(s.dataDir);
  assert.ok(!raw.some((v) => v.includes(MARK)), 'no plaintext in the database');
  assert.ok(raw.some((v) => v.startsWith('plat:enc:aescbc:v1:k1:')), 'event values carry the aescbc prefix');
  assert.ok(raw.some((v) => v.startsWith('plat:enc:secretbox:v1:all:')), 'the CSR is sealed by the *.* entry');
  assert.ok(!raw.some((v) => v.includes(key(1))), 'keys are not stored');

  // Rotation: a new key first, the old one still reads; new writes use the new key.
  const rotated = encryptionFile(tmp.dir, 'rotated.yaml', [
    { resources: ['events', 'namespaces'], providers: [{ aescbc: { keys: [{ name: 'k2', secret: key(3) }, { name: 'k1', secret: key(1) }] } }] },
    { resources: ['*.*'], providers: [{ secretbox: { keys: [{ name: 'all', secret: key(2) }] } }] },
  ]);
  s = await startPlatApiserver(tmp.dir, ['--encryption-provider-config', rotated]);
  try {
    assert.equal((await s.call('GET', '/api/v1/namespaces/enc/events/e1')).body.message, MARK);
    assert.equal((await s.call('POST', '/api/v1/namespaces/enc/events', { body: event('e2') })).status, 201);
  } finally {
    await s.stop();
  }
  assert.ok(rawValues(s.dataDir).some((v) => v.startsWith('plat:enc:aescbc:v1:k2:')));

  // Identity first, then aescbc: old encrypted values read, new values are written in clear.
  const identityFirst = encryptionFile(tmp.dir, 'identity.yaml', [
    { resources: ['events', 'namespaces'], providers: [{ identity: {} }, { aescbc: { keys: [{ name: 'k2', secret: key(3) }, { name: 'k1', secret: key(1) }] } }] },
  ]);
  s = await startPlatApiserver(tmp.dir, ['--encryption-provider-config', identityFirst]);
  try {
    assert.equal((await s.call('GET', '/api/v1/namespaces/enc/events/e1')).body.message, MARK);
    assert.equal((await s.call('GET', '/api/v1/namespaces/enc/events/e2')).body.message, MARK);
    assert.equal((await s.call('POST', '/api/v1/namespaces/enc/events', { body: event('e3') })).status, 201);
  } finally {
    await s.stop();
  }
  assert.ok(rawValues(s.dataDir).some((v) => v.includes(MARK)), 'identity writes plaintext');

  // Without the old key the encrypted events cannot be read, and the error says why.
  const lost = encryptionFile(tmp.dir, 'lost.yaml', [{ resources: ['events'], providers: [{ aescbc: { keys: [{ name: 'k9', secret: key(9) }] } }] }]);
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

test('kms v2: envelope-encrypted values through the plugin; plugin down gives a clear error', async (t) => {
  const tmp = tempDir('kms-it-');
  t.after(() => tmp.cleanup());
  const plugin = await startTestKmsPlugin();
  t.after(() => plugin.stop());
  const cfg = encryptionFile(tmp.dir, 'kms.yaml', [{ resources: ['events'], providers: [{ kms: { apiVersion: 'v2', name: 'test-kms', endpoint: plugin.endpoint, timeout: '2s' } }, { identity: {} }] }]);
  const s = await startPlatApiserver(tmp.dir, ['--encryption-provider-config', cfg]);
  try {
    assert.equal((await s.call('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'enc' } } })).status, 201);
    assert.equal((await s.call('POST', '/api/v1/namespaces/enc/events', { body: event('k1') })).status, 201);
    assert.equal((await s.call('GET', '/api/v1/namespaces/enc/events/k1')).body.message, MARK);
  } finally {
    await s.stop();
  }
  const raw = rawValues(s.dataDir);
  assert.ok(raw.some((v) => v.startsWith('plat:enc:kms:v2:test-kms:')));
  assert.ok(!raw.some((v) => v.includes(MARK)));
  assert.ok(plugin.calls.encrypt >= 1);
  // The plugin down: a fresh server cannot unwrap the stored DEK nor make a new one.
  await plugin.stop();
  const s2 = await startPlatApiserver(tmp.dir, ['--encryption-provider-config', cfg]);
  t.after(() => s2.stop());
  assert.match(s2.output(), /KMS plugin not healthy/);
  const read = await s2.call('GET', '/api/v1/namespaces/enc/events/k1');
  assert.equal(read.status, 500);
  assert.match(String(read.body.message), /KMS provider "test-kms" at unix:\/\/.*kms\.sock: Decrypt failed: (the plugin is unavailable|no answer within 2000ms)/);
  const write = await s2.call('POST', '/api/v1/namespaces/enc/events', { body: event('k2') });
  assert.equal(write.status, 500);
  assert.match(String(write.body.message), /KMS provider "test-kms" at unix:\/\/.*kms\.sock: Status failed/);
});
