// Errors name the file and the field, list every problem at once, and never show a secret.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { loadConfigFile, validateConfigFiles } from '../../../../src/apiserver/config/load.js';
import { ConfigError } from '../../../../src/common/util/errors.js';
import { authz, encryption, setAt, tempDir, tracing } from './fixtures.js';

const tmp = tempDir();
after(() => tmp.cleanup());

test('a wrong-length key is reported without its value', () => {
  const secret = Buffer.from('super-secret-key-material-20b').toString('base64');
  const d = setAt(encryption(), 'resources.0.providers.0.aesgcm.keys.0.secret', secret);
  const file = tmp.write('enc.yaml', d);
  const r = validateConfigFiles([file]);
  assert.equal(r.ok, false);
  const text = r.errors.join('\n');
  assert.ok(!text.includes(secret), text);
  assert.ok(!text.includes('super-secret'), text);
});

test('a YAML syntax error near a secret does not quote the file', () => {
  const secret = Buffer.alloc(32, 9).toString('base64');
  const file = tmp.writeText(
    'enc.yaml',
    `apiVersion: apiserver.config.platform.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [events]\n    providers:\n     - aescbc: {keys: [{name: k, secret: ${secret}]}\n`,
  );
  const r = validateConfigFiles([file]);
  assert.equal(r.ok, false);
  assert.match(r.errors[0] ?? '', /invalid YAML or JSON/);
  assert.ok(!r.errors.join('\n').includes(secret));
});

test('every problem of every file is listed, each with file and path', () => {
  const a = tmp.write(
    'a.yaml',
    setAt(
      setAt(authz(), 'authorizers.0.webhook.timeout', '1m'),
      'authorizers.0.webhook.failurePolicy',
      'Maybe',
    ),
  );
  const b = tmp.write('b.yaml', setAt(tracing(), 'samplingRatePerMillion', 2_000_000));
  const c = tmp.write('c.yaml', tracing());
  const r = validateConfigFiles([a, b, c, `${tmp.dir}/missing.yaml`]);
  assert.equal(r.ok, false);
  assert.equal(r.errors.length, 4, r.errors.join('\n'));
  assert.ok(r.errors.some((e) => e.startsWith(`${a}: authorizers[0].webhook.timeout:`)));
  assert.ok(r.errors.some((e) => e.startsWith(`${a}: authorizers[0].webhook.failurePolicy:`)));
  assert.ok(r.errors.some((e) => e.startsWith(`${b}: samplingRatePerMillion:`)));
  assert.ok(r.errors.some((e) => e === `${tmp.dir}/missing.yaml: file does not exist`));
  assert.equal(r.kinds[2], 'TracingConfiguration');
});

test('loadConfigFile checks the expected kind and names the flag', () => {
  const file = tmp.write('t.yaml', tracing());
  assert.throws(
    () => loadConfigFile(file, 'AuthorizationConfiguration', {}, '--authorization-config'),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.flag === '--authorization-config' &&
      /kind: Unsupported value: "TracingConfiguration": supported values: "AuthorizationConfiguration"/.test(
        err.message,
      ),
  );
  const ok = loadConfigFile(tmp.write('z.yaml', authz()), 'AuthorizationConfiguration');
  const wh = ok.authorizers[0]?.webhook;
  assert.equal(wh?.authorizedTTL, '5m0s');
  assert.equal(wh?.unauthorizedTTL, '30s');
  assert.equal(wh?.cacheAuthorizedRequests, true);
});

test('the platform domain sets the expected apiVersion', () => {
  const d = setAt(tracing(), 'apiVersion', 'apiserver.config.k8s.io/v1');
  assert.equal(
    validateConfigFiles([tmp.write('k.yaml', d)], { platformDomain: 'k8s.io' }).ok,
    true,
  );
});

test('the examples in examples/apiserver are valid', async () => {
  const { existsSync, readdirSync } = await import('node:fs');
  const { dirname, join } = await import('node:path');
  // From test/unit/... (tsx) or dist/test/unit/... (built), walk up to the repository root.
  let root = import.meta.dirname;
  while (!existsSync(join(root, 'package.json')) && dirname(root) !== root) root = dirname(root);
  const dir = join(root, 'examples', 'apiserver');
  const exists = readdirSync(dir, { withFileTypes: true });
  const files = exists
    .filter((e) => e.isFile() && e.name.endsWith('.yaml'))
    .map((e) => join(dir, e.name));
  const r = validateConfigFiles(files);
  assert.deepEqual(r.errors, []);
  assert.deepEqual([...r.kinds].sort(), [
    'AdmissionConfiguration',
    'AuthenticationConfiguration',
    'AuthorizationConfiguration',
    'EncryptionConfiguration',
    'TracingConfiguration',
  ]);
});

test('KMS defaults: apiVersion v1 with cachesize 1000, timeout 3s; v2 gets no cachesize', () => {
  const d = encryption();
  setAt(d, 'resources.0.providers.0', { kms: { name: 'a', endpoint: 'unix:///tmp/a.sock' } });
  setAt(d, 'resources.0.providers.1', {
    kms: { apiVersion: 'v2', name: 'b', endpoint: 'unix:///tmp/b.sock' },
  });
  const cfg = loadConfigFile(tmp.write('kms.yaml', d), 'EncryptionConfiguration');
  assert.deepEqual(cfg.resources[0]?.providers[0]?.kms, {
    name: 'a',
    endpoint: 'unix:///tmp/a.sock',
    apiVersion: 'v1',
    timeout: '3s',
    cachesize: 1000,
  });
  assert.deepEqual(cfg.resources[0]?.providers[1]?.kms, {
    apiVersion: 'v2',
    name: 'b',
    endpoint: 'unix:///tmp/b.sock',
    timeout: '3s',
  });
});
