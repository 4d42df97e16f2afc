// Projected service account tokens: requested through the TokenRequest API bound to the pod, and
// refreshed as the reference's token manager refreshes them: after 80% of the life (less a
// jitter of up to 10 s) or 24 h, a failed refresh serving the old token until it expires.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TokenManager,
  requiresRefresh,
  type TokenRequestSpec,
} from '../../../../src/agent/volume/token-manager.js';
import type { RestClient, RequestOptions } from '../../../../src/agent/client/rest-client.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

test('token refresh schedule: at 80% of expirationSeconds, or 24 h after issue, jitter earlier', () => {
  const issued = Date.UTC(2026, 0, 1);
  const t = { token: 'x', expirationSeconds: 3607, expiresAtMs: issued + 3607_000 };
  // 20% of 3607 s, truncated to whole seconds as the reference's integer arithmetic: 721 s
  assert.equal(requiresRefresh(t, issued + (3607 - 721) * 1000, 0), false);
  assert.equal(requiresRefresh(t, issued + (3607 - 721) * 1000 + 1, 0), true);
  assert.equal(requiresRefresh(t, issued + (3607 - 721 - 10) * 1000 + 1, 10_000), true);
  const day = { token: 'y', expirationSeconds: 7 * 86400, expiresAtMs: issued + 7 * 86400_000 };
  assert.equal(requiresRefresh(day, issued + 86400_000, 0), false);
  assert.equal(requiresRefresh(day, issued + 86400_000 + 1, 0), true);
});

test('token manager: POST serviceaccounts/<sa>/token with audience, expirationSeconds and the pod; cached until the refresh point; old token kept while the server fails', async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const calls: RequestOptions[] = [];
  let fail = false;
  const rest = {
    request: (o: RequestOptions): Promise<unknown> => {
      calls.push(o);
      if (fail) return Promise.reject(new Error('connection refused'));
      const exp = new Date(clock.nowMs() + 3607_000).toISOString();
      return Promise.resolve({
        spec: { expirationSeconds: 3607 },
        status: { token: `t${calls.length}`, expirationTimestamp: exp },
      });
    },
  } as unknown as RestClient;
  const tm = new TokenManager({
    rest,
    clock,
    authenticationGroup: 'authentication.k8s.io',
    jitterMs: () => 0,
  });
  const spec: TokenRequestSpec = {
    namespace: 'ns1',
    serviceAccount: 'default',
    audience: 'api',
    expirationSeconds: 3607,
    pod: { name: 'p', uid: 'u1' },
  };
  assert.equal(await tm.token(spec), 't1');
  assert.deepEqual(calls[0], {
    method: 'POST',
    path: '/api/v1/namespaces/ns1/serviceaccounts/default/token',
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {
        audiences: ['api'],
        expirationSeconds: 3607,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u1' },
      },
    },
  });
  clock.advance((3607 - 721) * 1000);
  assert.equal(await tm.token(spec), 't1', 'not yet at 80%');
  clock.advance(1000);
  assert.equal(await tm.token(spec), 't2', 'refreshed past 80%');
  clock.advance((3607 - 720) * 1000);
  fail = true;
  assert.equal(await tm.token(spec), 't2', 'the server fails: the unexpired token is kept');
  clock.advance(721_000);
  await assert.rejects(tm.token(spec), /connection refused/);
});
