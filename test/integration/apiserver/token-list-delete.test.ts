// `plat-apiserver token list` and `token delete` against the built server, as the reference's
// `kubeadm token list` / `kubeadm token delete`: the columns, placeholders and alignment of its
// text printer, its message for a Secret it cannot read, `bootstrap token "<id>" deleted`, its
// argument errors (written out here), and a deleted token refused (401) on the very next request.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { tokenCommand, tokenCreate } from '../../helpers/token-create.js';

const D = 'platform.io';
const A = 'abcdef.0123456789abcdef';
const B = 'ghijkl.0123456789abcdef';
let api: StartedApiServer;

before(async () => {
  api = await startApiServer({ args: ['--enable-bootstrap-token-auth'] });
});
after(async () => {
  await api?.stop();
});

const whoami = async (token: string): Promise<number> =>
  (
    await api.request('POST', `/apis/authentication.${D}/v1/selfsubjectreviews`, {
      token,
      body: { apiVersion: `authentication.${D}/v1`, kind: 'SelfSubjectReview' },
    })
  ).status;

test("token list: nothing without tokens; then kubeadm's columns, placeholders and alignment; an unreadable Secret is reported and skipped", async () => {
  const empty = await tokenCommand(api, 'list');
  assert.deepEqual([empty.code, empty.stdout, empty.stderr], [0, '', '']);
  assert.equal(
    (
      await tokenCreate(api, [
        A,
        '--ttl=2h',
        '--description=joins workers',
        '--groups=system:bootstrappers:worker',
      ])
    ).code,
    0,
  );
  assert.equal((await tokenCreate(api, [B, '--ttl=0'])).code, 0);
  const bad = await api.request('POST', '/api/v1/namespaces/plat-system/secrets', {
    body: {
      metadata: { name: 'bootstrap-token-zzzzzz' },
      type: `bootstrap.${D}/token`,
      stringData: { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef' },
    },
  });
  assert.equal(bad.status, 201, bad.text);
  const secret = await api.request(
    'GET',
    '/api/v1/namespaces/plat-system/secrets/bootstrap-token-abcdef',
  );
  const expires = Buffer.from(
    String((secret.json?.['data'] as Record<string, string>)['expiration']),
    'base64',
  ).toString();
  assert.match(expires, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const r = await tokenCommand(api, 'list');
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    'TOKEN                     TTL       EXPIRES                USAGES                   DESCRIPTION     EXTRA GROUPS\n' +
      `abcdef.0123456789abcdef   1h        ${expires}   authentication,signing   joins workers   system:bootstrappers:worker\n` +
      'ghijkl.0123456789abcdef   <forever>   <never>   authentication,signing   <none>    <none>\n',
  );
  assert.equal(
    r.stderr,
    `bootstrap token name is not of the form 'bootstrap-token-(token-id)'. Actual: "bootstrap-token-zzzzzz". Expected: "bootstrap-token-abcdef"\n`,
  );
});

test('token delete <id> and <token>: "bootstrap token "<id>" deleted", and the token gets 401 at once', async () => {
  assert.equal(await whoami(A), 201);
  assert.equal(await whoami(B), 201);
  const byId = await tokenCommand(api, 'delete', ['abcdef']);
  assert.deepEqual([byId.code, byId.stdout], [0, 'bootstrap token "abcdef" deleted\n']);
  assert.equal(await whoami(A), 401);
  const byToken = await tokenCommand(api, 'delete', [B]);
  assert.deepEqual([byToken.code, byToken.stdout], [0, 'bootstrap token "ghijkl" deleted\n']);
  assert.equal(await whoami(B), 401);
  assert.ok(
    !byToken.stdout.includes('0123456789abcdef') && !byToken.stderr.includes('0123456789abcdef'),
    'the secret half is never echoed',
  );
});

test("token delete: kubeadm's errors (already gone, not a token, no argument); an unknown subcommand", async () => {
  const gone = await tokenCommand(api, 'delete', ['abcdef']);
  assert.deepEqual(
    [gone.code, gone.stderr],
    [
      1,
      'plat-apiserver token delete: failed to delete bootstrap token "abcdef": secrets "bootstrap-token-abcdef" not found\n',
    ],
  );
  const notToken = await tokenCommand(api, 'delete', ['ABC']);
  assert.deepEqual(
    [notToken.code, notToken.stderr],
    [
      1,
      'plat-apiserver token delete: given token didn\'t match pattern "\\\\A([a-z0-9]{6})\\\\z" or "\\\\A([a-z0-9]{6})\\\\z"\n',
    ],
  );
  const none = await tokenCommand(api, 'delete');
  assert.deepEqual(
    [none.code, none.stderr],
    [
      1,
      'plat-apiserver token delete: missing argument; \'token delete\' is missing token of form "\\\\A([a-z0-9]{6})\\\\.([a-z0-9]{16})\\\\z" or "\\\\A([a-z0-9]{6})\\\\z"\n',
    ],
  );
  const unknown = await tokenCommand(api, 'frob');
  assert.equal(unknown.code, 1);
  assert.match(
    unknown.stderr,
    /^plat-apiserver token: unknown or missing subcommand "frob"; one of create, list, delete:/,
  );
});
