// --encryption-provider-config with a KMS v2 provider on the real plat-apiserver: envelope-encrypted
// values through a test plugin on a unix socket, and a clear error while the plugin is down.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestKmsPlugin } from '../../../helpers/kms-plugin.js';
import { encryptionFile, event, MARK, rawValues } from './encryption-fixtures.js';
import { startPlatApiserver, tempDir } from './plat-apiserver.js';

test('kms v2: envelope-encrypted values through the plugin; plugin down gives a clear error', async (t) => {
  const tmp = tempDir('kms-it-');
  t.after(() => tmp.cleanup());
  const plugin = await startTestKmsPlugin();
  t.after(() => plugin.stop());
  const cfg = encryptionFile(tmp.dir, 'kms.yaml', [
    {
      resources: ['events'],
      providers: [
        { kms: { apiVersion: 'v2', name: 'test-kms', endpoint: plugin.endpoint, timeout: '2s' } },
        { identity: {} },
      ],
    },
  ]);
  const s = await startPlatApiserver(tmp.dir, ['--encryption-provider-config', cfg]);
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
      (await s.call('POST', '/api/v1/namespaces/enc/events', { body: event('k1') })).status,
      201,
    );
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
  assert.match(
    String(read.body.message),
    /KMS provider "test-kms" at unix:\/\/.*kms\.sock: Decrypt failed: (the plugin is unavailable|no answer within 2000ms)/,
  );
  const write = await s2.call('POST', '/api/v1/namespaces/enc/events', { body: event('k2') });
  assert.equal(write.status, 500);
  assert.match(
    String(write.body.message),
    /KMS provider "test-kms" at unix:\/\/.*kms\.sock: Status failed/,
  );
});
