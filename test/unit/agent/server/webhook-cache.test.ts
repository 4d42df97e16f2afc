import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { FakeSarReviewer, FakeTokenReviewer } from '../../../helpers/server-fixture.js';
import { TokenWebhookAuthenticator } from '../../../../src/agent/server/authn/token.js';
import { WebhookAuthorizer } from '../../../../src/agent/server/authz/authorizers.js';
import {
  requestAttributes,
  subresourceFor,
} from '../../../../src/agent/server/authz/attributes.js';

const req = (token: string): IncomingMessage =>
  ({ headers: { authorization: `Bearer ${token}` } }) as unknown as IncomingMessage;

test('token answers (authenticated and not) are cached for the cache TTL; errors are not cached', async () => {
  const clock = new ManualClock();
  const reviewer = new FakeTokenReviewer();
  reviewer.users.set('t1', { username: 'u1', groups: [] });
  const authn = new TokenWebhookAuthenticator({ reviewer, cacheTtlMs: 120_000, clock });
  assert.equal((await authn.authenticate(req('t1'))).kind, 'authenticated');
  assert.equal((await authn.authenticate(req('bad'))).kind, 'rejected');
  assert.equal(reviewer.calls, 2);
  clock.advance(119_000);
  await authn.authenticate(req('t1'));
  await authn.authenticate(req('bad'));
  assert.equal(reviewer.calls, 2, 'answered from the cache within the TTL');
  // The reference's LRUExpireCache drops an entry only once the clock is strictly after its expiry.
  clock.advance(1_000);
  reviewer.users.delete('t1');
  assert.equal(
    (await authn.authenticate(req('t1'))).kind,
    'authenticated',
    'still cached at exactly the TTL',
  );
  clock.advance(1);
  assert.equal((await authn.authenticate(req('t1'))).kind, 'rejected', 'asked again after the TTL');
  assert.equal(reviewer.calls, 3);
  reviewer.down = true;
  await assert.rejects(authn.authenticate(req('t2')), /token review failed/);
  await assert.rejects(authn.authenticate(req('t2')), /token review failed/);
  assert.equal(reviewer.calls, 5, 'failures are not cached');
  assert.equal((await authn.authenticate({ headers: {} } as IncomingMessage)).kind, 'no-opinion');
});

test('allowed answers are cached for the authorized TTL, denied ones for the unauthorized TTL', async () => {
  const clock = new ManualClock();
  let allowAlice = true;
  const reviewer = new FakeSarReviewer((s) => s.user === 'alice' && allowAlice);
  const authz = new WebhookAuthorizer({
    reviewer,
    authorizedTtlMs: 300_000,
    unauthorizedTtlMs: 30_000,
    clock,
  });
  const alice = requestAttributes({ username: 'alice', groups: [] }, 'GET', '/pods', 'n1');
  const bob = requestAttributes({ username: 'bob', groups: [] }, 'GET', '/pods', 'n1');
  assert.equal((await authz.authorize(alice)).allowed, true);
  assert.equal((await authz.authorize(bob)).allowed, false);
  assert.equal(reviewer.calls, 2);
  allowAlice = false;
  clock.advance(29_999);
  assert.equal((await authz.authorize(alice)).allowed, true);
  assert.equal((await authz.authorize(bob)).allowed, false);
  assert.equal(reviewer.calls, 2);
  clock.advance(1);
  await authz.authorize(bob);
  assert.equal(
    reviewer.calls,
    2,
    'still cached at exactly 30 s (expired only strictly after, as the reference)',
  );
  clock.advance(1);
  await authz.authorize(bob);
  assert.equal(reviewer.calls, 3, 'denied answer expired after 30 s');
  assert.equal((await authz.authorize(alice)).allowed, true, 'allowed answer still cached');
  clock.advance(270_000);
  assert.equal(
    (await authz.authorize(alice)).allowed,
    false,
    'allowed answer expired after 5 minutes',
  );
  assert.equal(reviewer.calls, 4);
  // Another subresource is another question.
  await authz.authorize(
    requestAttributes({ username: 'alice', groups: [] }, 'GET', '/stats/summary', 'n1'),
  );
  assert.equal(reviewer.calls, 5);
  reviewer.down = true;
  await assert.rejects(
    authz.authorize(requestAttributes({ username: 'zed', groups: [] }, 'GET', '/pods', 'n1')),
    /subject access review failed/,
  );
});

test('request attributes follow the reference', () => {
  assert.equal(subresourceFor('/stats/summary'), 'stats');
  assert.equal(subresourceFor('/stats'), 'stats');
  assert.equal(subresourceFor('/statsx'), 'proxy');
  assert.equal(subresourceFor('/metrics'), 'metrics');
  assert.equal(subresourceFor('/metrics/cadvisor'), 'metrics');
  assert.equal(subresourceFor('/logs/syslog'), 'log');
  assert.equal(subresourceFor('/containerLogs/a/b/c'), 'proxy');
  assert.equal(subresourceFor('/pods'), 'proxy');
  const u = { username: 'u', groups: [] };
  assert.deepEqual(
    ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => requestAttributes(u, m, '/x', 'n').verb),
    ['get', 'create', 'update', 'patch', 'delete'],
  );
});
