// `token create` against servers of each naming profile: without profile flags it makes the token
// under the server's own names (the Secret's type and namespace), so the token authenticates;
// flags naming another profile are refused before anything is written, naming both; the server
// says at the warning level, with the token ID, why it refuses an existing token.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApiServer } from '../../helpers/apiserver.js';
import { tokenCommand } from '../../helpers/token-create.js';

const whoAmI = async (
  api: Awaited<ReturnType<typeof startApiServer>>,
  token: string,
): Promise<number> => (await api.request('GET', '/api/v1/namespaces', { token })).status;

test('token create without profile flags takes the server’s names: kubernetes (kube-system, bootstrap.kubernetes.io/token) and platform with another domain', async (t) => {
  const k8s = await startApiServer({
    args: ['--platform-profile=kubernetes', '--enable-bootstrap-token-auth'],
  });
  t.after(() => k8s.stop());
  const made = await tokenCommand(k8s, 'create', [], 'server');
  assert.equal(made.code, 0, made.stderr);
  const id = made.stdout.trim().slice(0, 6);
  const secret = await k8s.request(
    'GET',
    `/api/v1/namespaces/kube-system/secrets/bootstrap-token-${id}`,
  );
  assert.equal(secret.status, 200);
  assert.equal(secret.json?.['type'], 'bootstrap.kubernetes.io/token');
  assert.equal(await whoAmI(k8s, made.stdout.trim()), 403, 'authenticated (then forbidden)');

  const other = await startApiServer({
    platformDomain: 'example.com',
    args: ['--enable-bootstrap-token-auth'],
  });
  t.after(() => other.stop());
  const made2 = await tokenCommand(other, 'create', [], 'server');
  assert.equal(made2.code, 0, made2.stderr);
  const id2 = made2.stdout.trim().slice(0, 6);
  const secret2 = await other.request(
    'GET',
    `/api/v1/namespaces/plat-system/secrets/bootstrap-token-${id2}`,
  );
  assert.equal(secret2.status, 200);
  assert.equal(secret2.json?.['type'], 'bootstrap.example.com/token');
});

test('token create with flags naming another profile is refused, naming both, and writes nothing', async (t) => {
  const api = await startApiServer({
    platformDomain: 'k8s.io',
    args: ['--enable-bootstrap-token-auth'],
  });
  t.after(() => api.stop());
  const made = await tokenCommand(api, 'create', ['--platform-domain=platform.io'], 'server');
  assert.equal(made.code, 1);
  assert.equal(made.stdout, '');
  assert.equal(
    made.stderr.trim(),
    `plat-apiserver token create: the API server at https://127.0.0.1:${api.port} runs the platform (domain k8s.io) naming profile, but the flags name the platform (domain platform.io) profile: a token made under those names would never be found by the server (its Secret would be of type bootstrap.platform.io/token instead of bootstrap.k8s.io/token, in namespace plat-system); leave out --platform-profile and --platform-domain to use the server's`,
  );
  const list = await api.request('GET', '/api/v1/namespaces/plat-system/secrets');
  assert.deepEqual(list.json?.['items'], []);
});

test('a bootstrap token Secret of another profile’s type is refused with a warning naming the token ID and why', async (t) => {
  const api = await startApiServer({
    platformDomain: 'k8s.io',
    args: ['--enable-bootstrap-token-auth'],
  });
  t.after(() => api.stop());
  const created = await api.request('POST', '/api/v1/namespaces/plat-system/secrets', {
    body: {
      metadata: { name: 'bootstrap-token-abcdef' },
      type: 'bootstrap.platform.io/token',
      stringData: {
        'token-id': 'abcdef',
        'token-secret': '0123456789abcdef',
        'usage-bootstrap-authentication': 'true',
      },
    },
  });
  assert.equal(created.status, 201);
  assert.equal(await whoAmI(api, 'abcdef.0123456789abcdef'), 401);
  const warning =
    /^W.*bootstrap token secret plat-system\/bootstrap-token-abcdef has invalid type.*tokenId=abcdef/m;
  const deadline = Date.now() + 10_000;
  while (!warning.test(api.logs()) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  assert.match(api.logs(), warning);
});
