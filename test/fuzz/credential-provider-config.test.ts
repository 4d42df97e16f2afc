// --image-credential-provider-config against hostile files: the corpus under
// test/fixtures/hostile-credential-configs and generated documents are refused with a ConfigError
// naming the file or field (never another error, never a crash), and a provider name can never
// lead outside the bin dir.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCredentialProviderConfig } from '../../src/agent/runtime/credentials/provider-config.js';
import { ConfigError } from '../../src/common/util/errors.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';

const CORPUS = join(process.cwd(), 'test', 'fixtures', 'hostile-credential-configs');

test('the hostile corpus is refused with a ConfigError naming the file or the field', async () => {
  const files = (await readdir(CORPUS)).sort();
  assert.ok(files.length >= 6);
  for (const f of files) {
    await assert.rejects(
      loadCredentialProviderConfig(join(CORPUS, f)),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError, `${f}: ${String(e)}`);
        assert.match(
          e.message,
          /error decoding config ".*"|failed to validate credential provider config: /,
          f,
        );
        return true;
      },
      f,
    );
  }
});

const provider = fc.record(
  {
    name: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('..', '.', 'a/b', 'ok', 'a b')),
    matchImages: fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
    defaultCacheDuration: fc.oneof(
      fc.constantFrom('1m', '0s', '-1s', 'abc', '1h30m'),
      fc.string({ maxLength: 6 }),
    ),
    apiVersion: fc.constantFrom(
      'credentialprovider.kubelet.k8s.io/v1',
      'credentialprovider.kubelet.k8s.io/v1beta1',
      'x/v1',
      '',
    ),
  },
  { requiredKeys: ['name'] },
);

test('generated configurations load or fail with a ConfigError; loaded names never hold a / or are dot names', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'cred-fuzz-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'c.json');
  await fc.assert(
    fc.asyncProperty(
      fc.array(provider, { maxLength: 3 }),
      fc.anything({ maxDepth: 2 }),
      async (providers, junk) => {
        const doc =
          junk !== undefined &&
          typeof junk === 'object' &&
          junk !== null &&
          !Array.isArray(junk) &&
          Object.keys(junk).length > 0 &&
          providers.length === 0
            ? { apiVersion: 'kubelet.config.k8s.io/v1', kind: 'CredentialProviderConfig', ...junk }
            : {
                apiVersion: 'kubelet.config.k8s.io/v1',
                kind: 'CredentialProviderConfig',
                providers,
              };
        await writeFile(file, JSON.stringify(doc));
        try {
          const loaded = await loadCredentialProviderConfig(file);
          for (const p of loaded) {
            assert.ok(!p.name.includes('/') && p.name !== '.' && p.name !== '..', p.name);
            assert.ok(p.matchImages.length > 0 && p.defaultCacheDurationMs >= 0);
          }
        } catch (e) {
          assert.ok(e instanceof ConfigError, String(e));
        }
      },
    ),
    fuzzParams(150),
  );
});
