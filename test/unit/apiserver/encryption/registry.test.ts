// Encryption at rest: round trips, prefixes, rotation, identity-first migration, wildcards, KMS.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { EncryptionConfiguration } from '../../../../src/apiserver/config/encryption.js';
import { EncryptionTransformerRegistry } from '../../../../src/apiserver/encryption/registry.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { startTestKmsPlugin } from '../../../helpers/kms-plugin.js';

const key = (n: number, len = 32): string => Buffer.alloc(len, n).toString('base64');
const text = (b: Uint8Array): string => Buffer.from(b).toString('latin1');
const PLAIN = new TextEncoder().encode('{"kind":"Secret","data":"PLAINTEXT-MARKER"}');
const CTX = '/registry/events/default/e1';

function registry(resources: EncryptionConfiguration['resources']): EncryptionTransformerRegistry {
  return new EncryptionTransformerRegistry({
    config: {
      apiVersion: 'apiserver.config.platform.io/v1',
      kind: 'EncryptionConfiguration',
      resources,
    },
    clock: systemClock,
    logger: silentLogger(),
  });
}

describe('local providers', () => {
  for (const [kind, len] of [
    ['aesgcm', 16],
    ['aesgcm', 24],
    ['aesgcm', 32],
    ['aescbc', 32],
    ['secretbox', 32],
  ] as const) {
    test(`${kind} (${len}-byte key) round trip with its prefix and no plaintext`, async () => {
      const t = registry([
        {
          resources: ['events'],
          providers: [{ [kind]: { keys: [{ name: 'k1', secret: key(1, len) }] } }],
        },
      ]).transformerFor('events', '');
      const stored = await t.toStorage(PLAIN, CTX);
      assert.ok(text(stored).startsWith(`plat:enc:${kind}:v1:k1:`));
      assert.ok(!text(stored).includes('PLAINTEXT-MARKER'));
      const back = await t.fromStorage(stored, CTX);
      assert.deepEqual(Buffer.from(back.data), Buffer.from(PLAIN));
      assert.equal(back.stale, false);
      const again = await t.toStorage(PLAIN, CTX);
      assert.notDeepEqual(Buffer.from(again), Buffer.from(stored), 'each write uses a fresh nonce');
    });
  }

  test('aesgcm binds the value to its storage key', async () => {
    const t = registry([
      {
        resources: ['events'],
        providers: [{ aesgcm: { keys: [{ name: 'k1', secret: key(1) }] } }],
      },
    ]).transformerFor('events', '');
    const stored = await t.toStorage(PLAIN, CTX);
    await assert.rejects(
      t.fromStorage(stored, '/registry/events/default/other'),
      /cannot decrypt the stored value with aesgcm key "k1"/,
    );
  });

  test('key rotation: a new key first writes, the old one still reads (stale)', async () => {
    const old = registry([
      {
        resources: ['events'],
        providers: [{ aescbc: { keys: [{ name: 'old', secret: key(1) }] } }],
      },
    ]).transformerFor('events', '');
    const written = await old.toStorage(PLAIN, CTX);
    const rotated = registry([
      {
        resources: ['events'],
        providers: [
          {
            aescbc: {
              keys: [
                { name: 'new', secret: key(2) },
                { name: 'old', secret: key(1) },
              ],
            },
          },
        ],
      },
    ]).transformerFor('events', '');
    const read = await rotated.fromStorage(written, CTX);
    assert.deepEqual(Buffer.from(read.data), Buffer.from(PLAIN));
    assert.equal(read.stale, true);
    const fresh = await rotated.toStorage(PLAIN, CTX);
    assert.ok(text(fresh).startsWith('plat:enc:aescbc:v1:new:'));
    assert.equal((await rotated.fromStorage(fresh, CTX)).stale, false);
  });

  test('identity first, then aescbc: writes plaintext, reads both', async () => {
    const enc = registry([
      { resources: ['events'], providers: [{ aescbc: { keys: [{ name: 'k', secret: key(3) }] } }] },
    ]).transformerFor('events', '');
    const encrypted = await enc.toStorage(PLAIN, CTX);
    const t = registry([
      {
        resources: ['events'],
        providers: [{ identity: {} }, { aescbc: { keys: [{ name: 'k', secret: key(3) }] } }],
      },
    ]).transformerFor('events', '');
    const plain = await t.toStorage(PLAIN, CTX);
    assert.deepEqual(Buffer.from(plain), Buffer.from(PLAIN));
    assert.deepEqual(Buffer.from((await t.fromStorage(encrypted, CTX)).data), Buffer.from(PLAIN));
    assert.equal((await t.fromStorage(encrypted, CTX)).stale, true);
    assert.equal((await t.fromStorage(plain, CTX)).stale, false);
  });

  test('unencrypted data without identity, or an unknown key, is a clear error', async () => {
    const t = registry([
      { resources: ['events'], providers: [{ aescbc: { keys: [{ name: 'k', secret: key(3) }] } }] },
    ]).transformerFor('events', '');
    await assert.rejects(
      t.fromStorage(PLAIN, CTX),
      /no matching prefix found: the stored value is not encrypted and identity is not among the configured providers/,
    );
    const other = registry([
      {
        resources: ['events'],
        providers: [{ secretbox: { keys: [{ name: 'gone', secret: key(4) }] } }],
      },
    ]).transformerFor('events', '');
    await assert.rejects(
      t.fromStorage(await other.toStorage(PLAIN, CTX), CTX),
      /encrypted with secretbox v1 key "gone", which is not in the configured providers/,
    );
  });

  test('the wrong key under the right name fails without showing key material', async () => {
    const a = registry([
      {
        resources: ['events'],
        providers: [{ secretbox: { keys: [{ name: 'k', secret: key(5) }] } }],
      },
    ]).transformerFor('events', '');
    const b = registry([
      {
        resources: ['events'],
        providers: [{ secretbox: { keys: [{ name: 'k', secret: key(6) }] } }],
      },
    ]).transformerFor('events', '');
    await assert.rejects(b.fromStorage(await a.toStorage(PLAIN, CTX), CTX), (err: Error) => {
      assert.match(err.message, /secretbox key "k"/);
      assert.ok(!err.message.includes(key(6)) && !err.message.includes(key(5)));
      return true;
    });
  });
});

describe('resource matching', () => {
  const r = registry([
    { resources: ['events'], providers: [{ identity: {} }] },
    {
      resources: ['*.certificates.platform.io'],
      providers: [{ aesgcm: { keys: [{ name: 'csr', secret: key(7) }] } }],
    },
    { resources: ['*.'], providers: [{ secretbox: { keys: [{ name: 'core', secret: key(8) }] } }] },
    { resources: ['*.*'], providers: [{ aescbc: { keys: [{ name: 'all', secret: key(9) }] } }] },
  ]);
  const prefixOf = async (resource: string, group: string): Promise<string> =>
    text(await r.transformerFor(resource, group).toStorage(PLAIN, CTX)).slice(0, 30);
  test('earlier lists win; *.<group>, *. and *.* match as documented', async () => {
    assert.ok((await prefixOf('events', '')).startsWith('{"kind"'), 'events exempted by identity');
    assert.ok(
      (await prefixOf('certificatesigningrequests', 'certificates.platform.io')).startsWith(
        'plat:enc:aesgcm:v1:csr:',
      ),
    );
    assert.ok((await prefixOf('nodes', '')).startsWith('plat:enc:secretbox:v1:core:'));
    assert.ok((await prefixOf('widgets', 'example.com')).startsWith('plat:enc:aescbc:v1:all:'));
  });
  test('unlisted resources are stored as they are', async () => {
    const only = registry([
      { resources: ['events'], providers: [{ aescbc: { keys: [{ name: 'k', secret: key(1) }] } }] },
    ]);
    assert.deepEqual(
      Buffer.from(await only.transformerFor('nodes', '').toStorage(PLAIN, CTX)),
      Buffer.from(PLAIN),
    );
  });
});

describe('kms v2', () => {
  test('envelope round trip through the plugin, DEK reused and cached, rotation keeps old data readable', async (t) => {
    const plugin = await startTestKmsPlugin();
    t.after(() => plugin.stop());
    const reg = registry([
      {
        resources: ['events'],
        providers: [
          { kms: { apiVersion: 'v2', name: 'test-kms', endpoint: plugin.endpoint, timeout: '2s' } },
        ],
      },
    ]);
    t.after(() => reg.close());
    assert.deepEqual(await reg.checkKmsPlugins(), []);
    const tr = reg.transformerFor('events', '');
    const a = await tr.toStorage(PLAIN, CTX);
    const b = await tr.toStorage(PLAIN, CTX);
    assert.ok(text(a).startsWith('plat:enc:kms:v2:test-kms:'));
    assert.ok(!text(a).includes('PLAINTEXT-MARKER'));
    assert.equal(plugin.calls.encrypt, 1, 'one DEK for many writes');
    assert.deepEqual(Buffer.from((await tr.fromStorage(b, CTX)).data), Buffer.from(PLAIN));
    assert.equal(plugin.calls.decrypt, 0, 'own DEK is cached');
    // A fresh server instance (empty cache) must ask the plugin once, then cache.
    const reg2 = registry([
      {
        resources: ['events'],
        providers: [{ kms: { apiVersion: 'v2', name: 'test-kms', endpoint: plugin.endpoint } }],
      },
    ]);
    t.after(() => reg2.close());
    const tr2 = reg2.transformerFor('events', '');
    await tr2.fromStorage(a, CTX);
    await tr2.fromStorage(b, CTX);
    assert.equal(plugin.calls.decrypt, 1);
    plugin.rotate();
    const reg3 = registry([
      {
        resources: ['events'],
        providers: [{ kms: { apiVersion: 'v2', name: 'test-kms', endpoint: plugin.endpoint } }],
      },
    ]);
    t.after(() => reg3.close());
    const c = await reg3.transformerFor('events', '').toStorage(PLAIN, CTX);
    assert.deepEqual(
      Buffer.from((await reg3.transformerFor('events', '').fromStorage(a, CTX)).data),
      Buffer.from(PLAIN),
    );
    assert.deepEqual(Buffer.from((await tr2.fromStorage(c, CTX)).data), Buffer.from(PLAIN));
  });

  test('the plugin down gives a clear error naming the provider and the endpoint', async (t) => {
    const plugin = await startTestKmsPlugin();
    await plugin.stop();
    const reg = registry([
      {
        resources: ['events'],
        providers: [
          { kms: { apiVersion: 'v2', name: 'down-kms', endpoint: plugin.endpoint, timeout: '1s' } },
        ],
      },
    ]);
    t.after(() => reg.close());
    await assert.rejects(reg.transformerFor('events', '').toStorage(PLAIN, CTX), (err: Error) => {
      assert.match(
        err.message,
        new RegExp(
          `KMS provider "down-kms" at ${plugin.endpoint.replace(/[/.]/g, '\\$&')}: Status failed: (the plugin is unavailable|no answer within 1000ms)`,
        ),
      );
      return true;
    });
    const problems = await reg.checkKmsPlugins();
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /KMS provider "down-kms"/);
  });
});
