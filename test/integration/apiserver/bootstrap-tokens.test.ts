// Bootstrap tokens on the built plat-apiserver: `token create` writes the Secret and a join
// platconfig; the token authenticates system:bootstrap:<id> at once, and stops at once when its
// Secret is deleted or has expired (the reference's authenticator reads the Secret each time);
// the token cleaner deletes expired ones; Secrets are encrypted at rest. Also the Secret and
// ConfigMap API with the reference's validation messages.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { tokenCreate } from '../../helpers/token-create.js';
import { encryptionFile, key, MARK, rawValues } from './config/encryption-fixtures.js';

const D = 'platform.io';
const tokenSecretBody = (id: string, data: Record<string, string>): Record<string, unknown> => ({
  metadata: { name: `bootstrap-token-${id}` },
  type: `bootstrap.${D}/token`,
  stringData: {
    'token-id': id,
    'token-secret': '0123456789abcdef',
    'usage-bootstrap-authentication': 'true',
    ...data,
  },
});

function tempDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'bt-it-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

async function until(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const whoAmI = async (api: StartedApiServer, token: string): Promise<string> => {
  // Under --authorization-mode=Node a token user may do nothing: the 403 names who it is.
  const r = await api.request('GET', '/api/v1/namespaces', { token });
  if (r.status === 401) return '401';
  return String(r.json?.['message']).replace(/^namespaces is forbidden: User "([^"]+)".*$/, '$1');
};

test('token create → the token authenticates; deleting its Secret refuses it at once; the join platconfig is ready for a node', async (t) => {
  const tmp = tempDir();
  t.after(() => tmp.cleanup());
  const api = await startApiServer({
    args: ['--authorization-mode=Node', '--enable-bootstrap-token-auth'],
  });
  t.after(() => api.stop());
  const join1 = join(tmp.dir, 'join.platconfig');
  const made = await tokenCreate(api, [
    '--ttl=1h',
    `--print-join-config=${join1}`,
    '--groups=system:bootstrappers:worker',
  ]);
  assert.equal(made.code, 0, made.stderr);
  const token = made.stdout.trim();
  assert.match(token, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
  const id = token.slice(0, 6);
  assert.ok(!made.stderr.includes(token.slice(7)), 'the secret half is printed only on stdout');
  // the Secret, as the reference keeps it
  const s = await api.request(
    'GET',
    `/api/v1/namespaces/plat-system/secrets/bootstrap-token-${id}`,
  );
  assert.equal(s.status, 200);
  assert.equal(s.json?.['type'], `bootstrap.${D}/token`);
  const data = s.json?.['data'] as Record<string, string>;
  const text = (k: string): string => Buffer.from(data[k] ?? '', 'base64').toString();
  assert.equal(text('token-id'), id);
  assert.equal(text('usage-bootstrap-authentication'), 'true');
  assert.equal(text('usage-bootstrap-signing'), 'true');
  assert.equal(text('auth-extra-groups'), 'system:bootstrappers:worker');
  const exp = Date.parse(text('expiration')) - Date.now();
  assert.ok(exp > 59 * 60_000 && exp <= 3600_000, `expires in about an hour (${exp} ms)`);
  assert.equal(s.json?.['stringData'], undefined, 'stringData is write-only');
  // the join platconfig: 0600, the server, the CA embedded, the token
  assert.equal(statSync(join1).mode & 0o777, 0o600);
  const cfg = parseYaml(readFileSync(join1, 'utf8')) as {
    clusters: { cluster: Record<string, string> }[];
    users: { user: Record<string, string> }[];
  };
  assert.equal(cfg.clusters[0]?.cluster['server'], api.url);
  assert.equal(
    Buffer.from(cfg.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString(),
    readFileSync(api.caFile, 'utf8'),
  );
  assert.equal(cfg.users[0]?.user['token'], token);
  // authenticates, then is refused at once when deleted
  assert.equal(await whoAmI(api, token), `system:bootstrap:${id}`);
  assert.equal(
    (await api.request('DELETE', `/api/v1/namespaces/plat-system/secrets/bootstrap-token-${id}`))
      .status,
    200,
  );
  assert.equal(await whoAmI(api, token), '401');
  assert.ok(!api.logs().includes(token.slice(7)), 'the token secret is never logged');
  // a bad flag: a clear error naming it, exit 1
  const bad = await tokenCreate(api, ['--ttl=forever']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /plat-apiserver token create: .*ttl/);
});

test('expired, unparsable-expiry and not-for-authentication tokens are refused; the token file still works; without the flag tokens are unknown', async (t) => {
  const tmp = tempDir();
  t.after(() => tmp.cleanup());
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(tmp.dir, 'tokens.csv'), 'file-token,alice,u1,\n');
  const api = await startApiServer({
    args: [
      '--authorization-mode=Node',
      '--enable-bootstrap-token-auth',
      '--controllers=csrapproving,csrsigning',
      `--token-auth-file=${join(tmp.dir, 'tokens.csv')}`,
    ],
  });
  t.after(() => api.stop());
  const put = async (id: string, data: Record<string, string>): Promise<void> => {
    const r = await api.request('POST', '/api/v1/namespaces/plat-system/secrets', {
      body: tokenSecretBody(id, data),
    });
    assert.equal(r.status, 201, r.text);
  };
  await put('aaaaaa', { expiration: new Date(Date.now() + 3600_000).toISOString() });
  await put('bbbbbb', { expiration: '2020-01-01T00:00:00Z' });
  await put('cccccc', { expiration: 'next tuesday' });
  await put('dddddd', { 'usage-bootstrap-authentication': 'false' });
  await put('eeeeee', { 'auth-extra-groups': 'system:masters' });
  assert.equal(await whoAmI(api, 'aaaaaa.0123456789abcdef'), 'system:bootstrap:aaaaaa');
  assert.equal(await whoAmI(api, 'aaaaaa.ffffffffffffffff'), '401');
  for (const id of ['bbbbbb', 'cccccc', 'dddddd', 'eeeeee'])
    assert.equal(await whoAmI(api, `${id}.0123456789abcdef`), '401', id);
  assert.equal(await whoAmI(api, 'file-token'), 'alice');
  const off = await startApiServer({ args: ['--authorization-mode=Node'] });
  t.after(() => off.stop());
  assert.equal(
    (
      await off.request('POST', '/api/v1/namespaces/plat-system/secrets', {
        body: tokenSecretBody('aaaaaa', {}),
      })
    ).status,
    201,
  );
  assert.equal(
    await whoAmI(off, 'aaaaaa.0123456789abcdef'),
    '401',
    'without --enable-bootstrap-token-auth',
  );
});

test('the token cleaner deletes expired bootstrap tokens only; Secrets are encrypted at rest', async (t) => {
  const tmp = tempDir();
  t.after(() => tmp.cleanup());
  const enc = encryptionFile(tmp.dir, 'enc.yaml', [
    { resources: ['secrets'], providers: [{ aescbc: { keys: [{ name: 'k1', secret: key(1) }] } }] },
  ]);
  const api = await startApiServer({
    dataDir: join(tmp.dir, 'data'),
    args: ['--enable-bootstrap-token-auth', `--encryption-provider-config=${enc}`],
  });
  let stopped = false;
  t.after(() => (stopped ? undefined : api.stop()));
  const ns = '/api/v1/namespaces/plat-system/secrets';
  assert.equal(
    (
      await api.request('POST', ns, {
        body: tokenSecretBody('ffffff', {
          expiration: new Date(Date.now() + 3600_000).toISOString(),
          description: MARK,
        }),
      })
    ).status,
    201,
  );
  assert.equal(
    (
      await api.request('POST', ns, {
        body: {
          metadata: { name: 'not-a-token' },
          stringData: { expiration: '2020-01-01T00:00:00Z' },
        },
      })
    ).status,
    201,
  );
  assert.equal(
    (
      await api.request('POST', ns, {
        body: tokenSecretBody('gggggg', { expiration: '2020-01-01T00:00:00Z' }),
      })
    ).status,
    201,
  );
  await until(
    'the expired token to be deleted',
    async () => (await api.request('GET', `${ns}/bootstrap-token-gggggg`)).status === 404,
  );
  // the cleaner logs after the delete: its line may reach our end of the server's output pipe
  // after the 404 did, so it is awaited
  const deletedLine = /deleted expired bootstrap token/;
  await until('the deletion logged', () => Promise.resolve(deletedLine.test(api.logs()))).catch(
    () => assert.match(api.logs(), deletedLine),
  );
  assert.equal(
    (await api.request('GET', `${ns}/bootstrap-token-ffffff`)).status,
    200,
    'a live token stays',
  );
  assert.equal(
    (await api.request('GET', `${ns}/not-a-token`)).status,
    200,
    'a Secret of another type stays',
  );
  await api.stop();
  stopped = true;
  const raw = rawValues(join(tmp.dir, 'data'));
  assert.ok(
    !raw.some((v) => v.includes(MARK) || v.includes(Buffer.from(MARK).toString('base64'))),
    'no secret data in clear in the database',
  );
  assert.ok(
    raw.some((v) => v.startsWith('plat:enc:aescbc:v1:k1:')),
    'Secrets carry the aescbc prefix',
  );
});

test('Secrets and ConfigMaps: the reference validation and immutability answers', async (t) => {
  const api = await startApiServer();
  t.after(() => api.stop());
  const s = '/api/v1/namespaces/default/secrets';
  const c = '/api/v1/namespaces/default/configmaps';
  const created = await api.request('POST', s, {
    body: {
      metadata: { name: 's1' },
      data: { a: Buffer.from('x').toString('base64') },
      stringData: { b: 'y' },
    },
  });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json?.['data'], { a: 'eA==', b: 'eQ==' });
  assert.equal(created.json?.['type'], 'Opaque');
  const badKey = await api.request('POST', s, {
    body: { metadata: { name: 's2' }, stringData: { 'a b': 'x' } },
  });
  assert.equal(badKey.status, 422);
  assert.equal(
    badKey.json?.['message'],
    `Secret "s2" is invalid: data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
  );
  const typeChange = await api.request('PATCH', `${s}/s1`, {
    body: { type: 'other' },
    contentType: 'application/merge-patch+json',
  });
  assert.equal(typeChange.status, 422);
  assert.equal(
    typeChange.json?.['message'],
    'Secret "s1" is invalid: type: Invalid value: "other": field is immutable',
  );
  assert.equal(
    (
      await api.request('PATCH', `${s}/s1`, {
        body: { immutable: true },
        contentType: 'application/merge-patch+json',
      })
    ).status,
    200,
  );
  const frozen = await api.request('PATCH', `${s}/s1`, {
    body: { data: { a: 'eg==' } },
    contentType: 'application/merge-patch+json',
  });
  assert.equal(frozen.status, 422);
  assert.equal(
    frozen.json?.['message'],
    'Secret "s1" is invalid: data: Forbidden: field is immutable when `immutable` is set',
  );
  const cm = await api.request('POST', c, {
    body: { metadata: { name: 'c1' }, data: { k: 'v' }, binaryData: { k: 'eA==' } },
  });
  assert.equal(cm.status, 422);
  assert.equal(
    cm.json?.['message'],
    'ConfigMap "c1" is invalid: data[k]: Invalid value: "k": duplicate of key present in binaryData',
  );
  assert.equal(
    (await api.request('POST', c, { body: { metadata: { name: 'c1' }, data: { k: 'v' } } })).status,
    201,
  );
  const list = await api.request(
    'GET',
    '/api/v1/namespaces/default/secrets?fieldSelector=type%3DOpaque',
  );
  assert.deepEqual(
    (list.json?.['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name),
    ['s1'],
  );
  const big = await api.request('POST', c, {
    body: { metadata: { name: 'c2' }, data: { k: 'x'.repeat(1024 * 1024) } },
  });
  assert.equal(big.status, 422, big.text.slice(0, 200));
});
