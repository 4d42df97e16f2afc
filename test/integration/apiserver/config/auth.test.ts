// --authentication-config and --authorization-config on the real plat-apiserver: JWT tokens from a
// local OIDC issuer, anonymous on listed paths, and a SubjectAccessReview webhook chain.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { startOidcIssuer } from '../../../helpers/oidc-issuer.js';
import { startSarWebhook } from '../../../helpers/sar-webhook.js';
import { startPlatApiserver, tempDir } from './plat-apiserver.js';

const V = 'apiserver.config.platform.io/v1';

test('JWT authentication, anonymous path conditions and webhook authorization', async (t) => {
  const tmp = tempDir('auth-it-');
  t.after(() => tmp.cleanup());
  const issuer = await startOidcIssuer({ audience: 'plat' });
  t.after(() => issuer.close());
  const hook = await startSarWebhook({ dir: tmp.dir });
  t.after(() => hook.close());
  // The webhook allows user oidc:alice to list namespaces, denies delete, has no opinion otherwise.
  hook.setHandler((r) => {
    const ra = r.spec.resourceAttributes as { verb?: string; resource?: string } | undefined;
    if (r.spec.user === 'oidc:alice' && ra?.verb === 'list' && ra.resource === 'namespaces')
      return { allowed: true };
    if (ra?.verb === 'delete') return { allowed: false, denied: true, reason: 'no deleting' };
    return { allowed: false };
  });
  const authn = join(tmp.dir, 'authn.yaml');
  writeFileSync(
    authn,
    stringify({
      apiVersion: V,
      kind: 'AuthenticationConfiguration',
      jwt: [
        {
          issuer: { url: issuer.url, certificateAuthority: issuer.caPem, audiences: ['plat'] },
          claimValidationRules: [
            {
              expression: "claims.hd == 'example.com'",
              message: 'hosted domain must be example.com',
            },
          ],
          claimMappings: {
            username: { claim: 'sub', prefix: 'oidc:' },
            groups: { expression: "claims.groups.map(g, 'oidc:' + g)" },
          },
          userValidationRules: [
            { expression: "!user.username.startsWith('oidc:system:')", message: 'reserved name' },
          ],
        },
      ],
      anonymous: { enabled: true, conditions: [{ path: '/api' }] },
    }),
  );
  const authz = join(tmp.dir, 'authz.yaml');
  writeFileSync(
    authz,
    stringify({
      apiVersion: V,
      kind: 'AuthorizationConfiguration',
      authorizers: [
        {
          type: 'Webhook',
          name: 'sar',
          webhook: {
            timeout: '3s',
            subjectAccessReviewVersion: 'v1',
            matchConditionSubjectAccessReviewVersion: 'v1',
            failurePolicy: 'Deny',
            connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: hook.platconfigPath },
            matchConditions: [{ expression: "request.user.startsWith('oidc:')" }],
          },
        },
        { type: 'AlwaysDeny', name: 'deny-rest' },
      ],
    }),
  );
  const s = await startPlatApiserver(tmp.dir, [
    '--authentication-config',
    authn,
    '--authorization-config',
    authz,
  ]);
  t.after(() => s.stop());

  const good = await issuer.mint({ sub: 'alice', hd: 'example.com', groups: ['dev'] });
  assert.equal((await s.call('GET', '/api/v1/namespaces', { token: good })).status, 200);
  const del = await s.call('DELETE', '/api/v1/namespaces/default', { token: good });
  assert.equal(del.status, 403);
  assert.match(String(del.body.message), /no deleting/);
  assert.equal(
    (await s.call('GET', '/api/v1/nodes', { token: good })).status,
    403,
    'no opinion from the webhook, then AlwaysDeny',
  );
  const sent = hook.requests.find((r) => r.spec.user === 'oidc:alice');
  assert.deepEqual(sent?.spec.groups, ['oidc:dev', 'system:authenticated']);

  assert.equal(
    (
      await s.call('GET', '/api/v1/namespaces', {
        token: await issuer.mint({ sub: 'alice', hd: 'evil.com', groups: [] }),
      })
    ).status,
    401,
  );
  assert.equal(
    (
      await s.call('GET', '/api/v1/namespaces', {
        token: await issuer.mint(
          { sub: 'alice', hd: 'example.com', groups: [] },
          { expiresInSec: -10 },
        ),
      })
    ).status,
    401,
  );
  assert.equal(
    (
      await s.call('GET', '/api/v1/namespaces', {
        token: await issuer.mint({ sub: 'system:x', hd: 'example.com', groups: [] }),
      })
    ).status,
    401,
  );
  assert.equal(
    (
      await s.call('GET', '/api/v1/namespaces', {
        token: await issuer.mint({ sub: 'alice', hd: 'example.com', groups: [], aud: ['other'] }),
      })
    ).status,
    401,
  );

  // Anonymous only on /api; its requests do not match the webhook's condition, so AlwaysDeny decides.
  const anonApi = await s.call('GET', '/api', { anonymous: true });
  assert.notEqual(anonApi.status, 401);
  assert.equal((await s.call('GET', '/apis', { anonymous: true })).status, 401);
  assert.ok(!hook.requests.some((r) => r.spec.user === 'system:anonymous'));
  // The admin (system:masters) is allowed whatever the chain says.
  assert.equal((await s.call('GET', '/api/v1/nodes')).status, 200);
  // Neither the tokens nor the webhook's credential appear in the server's output.
  assert.ok(!s.output().includes(good) && !s.output().includes('webhook-token'));
});

test('a bad configuration file stops plat-apiserver at start with the field named', async (t) => {
  const tmp = tempDir('auth-bad-it-');
  t.after(() => tmp.cleanup());
  const bad = join(tmp.dir, 'authz.yaml');
  writeFileSync(
    bad,
    stringify({
      apiVersion: V,
      kind: 'AuthorizationConfiguration',
      authorizers: [
        {
          type: 'Webhook',
          name: 'w',
          webhook: {
            timeout: '45s',
            subjectAccessReviewVersion: 'v1',
            matchConditionSubjectAccessReviewVersion: 'v1',
            failurePolicy: 'Deny',
            connectionInfo: { type: 'InClusterConfig' },
          },
        },
      ],
    }),
  );
  await assert.rejects(
    startPlatApiserver(tmp.dir, ['--authorization-config', bad]),
    (err: Error) => {
      assert.match(err.message, /exited with 1/);
      // The log line escapes quotes.
      assert.match(
        err.message,
        /authz\.yaml: authorizers\[0\]\.webhook\.timeout: Invalid value: \\?"45s\\?": must not be greater than 30s/,
      );
      assert.match(
        err.message,
        /authz\.yaml: authorizers\[0\]\.webhook\.connectionInfo\.type: Invalid value: \\?"InClusterConfig\\?"/,
      );
      return true;
    },
  );
});

test('--authorization-mode=Webhook with the --authorization-webhook-* flags', async (t) => {
  const tmp = tempDir('authz-mode-it-');
  t.after(() => tmp.cleanup());
  const hook = await startSarWebhook({ dir: tmp.dir });
  t.after(() => hook.close());
  hook.setHandler((r) => ({ allowed: r.spec.user === 'carol' }));
  const tokens = join(tmp.dir, 'tokens.csv');
  writeFileSync(tokens, 'carol-token,carol,u1\ndave-token,dave,u2\n');
  const s = await startPlatApiserver(tmp.dir, [
    '--token-auth-file',
    tokens,
    '--authorization-mode',
    'Webhook,AlwaysDeny',
    '--authorization-webhook-config-file',
    hook.platconfigPath,
    '--authorization-webhook-version',
    'v1',
  ]);
  t.after(() => s.stop());
  assert.equal((await s.call('GET', '/api/v1/namespaces', { token: 'carol-token' })).status, 200);
  assert.equal((await s.call('GET', '/api/v1/namespaces', { token: 'dave-token' })).status, 403);
  assert.equal(hook.requests[0]?.apiVersion, 'authorization.platform.io/v1');
});
