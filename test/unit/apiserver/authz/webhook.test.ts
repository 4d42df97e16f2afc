// The Webhook authorizer against a local SubjectAccessReview server.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { WebhookConfig } from '../../../../src/apiserver/config/authorization.js';
import { WebhookAuthorizer } from '../../../../src/apiserver/authz/webhook.js';
import type { RequestAttributes } from '../../../../src/apiserver/interfaces.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { loadConnection } from '../../../../src/common/platconfig/platconfig.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { startSarWebhook, type TestSarWebhook } from '../../../helpers/sar-webhook.js';

const dir = mkdtempSync(join(tmpdir(), 'sar-'));
let hook: TestSarWebhook;
const made: WebhookAuthorizer[] = [];
before(async () => {
  hook = await startSarWebhook({ dir, token: 'secret-webhook-token' });
});
after(async () => {
  for (const a of made) await a.close();
  await hook.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  hook.requests.length = 0;
  hook.setHandler(() => ({ allowed: true }));
});

const attrs = (over: Partial<RequestAttributes> = {}): RequestAttributes => ({
  user: {
    username: 'alice',
    groups: ['devs', 'system:authenticated'],
    uid: 'u1',
    extra: { 'example.com/t': ['x'] },
  },
  verb: 'get',
  isResourceRequest: true,
  path: '/api/v1/namespaces/team-a/pods/p',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  namespace: 'team-a',
  name: 'p',
  ...over,
});

async function authorizer(
  over: Partial<WebhookConfig> = {},
  clock = new ManualClock(),
): Promise<WebhookAuthorizer> {
  const a = new WebhookAuthorizer({
    name: 'sar',
    config: {
      authorizedTTL: '5m0s',
      unauthorizedTTL: '30s',
      cacheAuthorizedRequests: true,
      cacheUnauthorizedRequests: true,
      timeout: '2s',
      subjectAccessReviewVersion: 'v1',
      matchConditionSubjectAccessReviewVersion: 'v1',
      failurePolicy: 'NoOpinion',
      connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: hook.platconfigPath },
      matchConditions: [],
      ...over,
    },
    connection: await loadConnection(hook.platconfigPath),
    platformDomain: 'platform.io',
    clock,
    logger: silentLogger(),
  });
  made.push(a);
  return a;
}

describe('webhook authorizer', () => {
  test('sends a v1 SubjectAccessReview with the token and maps allowed/denied/no opinion', async () => {
    const a = await authorizer({
      cacheAuthorizedRequests: false,
      cacheUnauthorizedRequests: false,
    });
    assert.deepEqual(await a.authorize(attrs()), { decision: 'allow' });
    const r = hook.requests[0];
    assert.equal(r?.apiVersion, 'authorization.platform.io/v1');
    assert.equal(r?.authorization, 'Bearer secret-webhook-token');
    assert.deepEqual(r?.spec, {
      user: 'alice',
      groups: ['devs', 'system:authenticated'],
      extra: { 'example.com/t': ['x'] },
      uid: 'u1',
      resourceAttributes: {
        namespace: 'team-a',
        verb: 'get',
        group: '',
        version: 'v1',
        resource: 'pods',
        subresource: '',
        name: 'p',
      },
    });
    hook.setHandler(() => ({ allowed: false, denied: true, reason: 'nope' }));
    assert.deepEqual(await a.authorize(attrs()), { decision: 'deny', reason: 'nope' });
    hook.setHandler(() => ({ allowed: false }));
    assert.deepEqual(await a.authorize(attrs()), { decision: 'no-opinion' });
    assert.deepEqual(
      (await a.authorize(attrs({ isResourceRequest: false, path: '/healthz' }))).decision,
      'no-opinion',
    );
    assert.deepEqual(hook.requests.at(-1)?.spec.nonResourceAttributes, {
      path: '/healthz',
      verb: 'get',
    });
  });

  test('v1beta1 names the groups field "group"', async () => {
    const a = await authorizer({ subjectAccessReviewVersion: 'v1beta1' });
    assert.deepEqual(await a.authorize(attrs()), { decision: 'allow' });
    assert.equal(hook.requests[0]?.apiVersion, 'authorization.platform.io/v1beta1');
    assert.deepEqual(hook.requests[0]?.spec.group, ['devs', 'system:authenticated']);
    assert.equal(hook.requests[0]?.spec.groups, undefined);
  });

  test('answers are cached for authorizedTTL and unauthorizedTTL', async () => {
    const clock = new ManualClock();
    const a = await authorizer({ authorizedTTL: '1m', unauthorizedTTL: '10s' }, clock);
    await a.authorize(attrs());
    await a.authorize(attrs());
    assert.equal(hook.requests.length, 1, 'allowed answer cached');
    clock.advance(61_000);
    await a.authorize(attrs());
    assert.equal(hook.requests.length, 2, 'expired after authorizedTTL');
    hook.setHandler(() => ({ allowed: false, reason: 'no' }));
    const other = attrs({ name: 'q' });
    await a.authorize(other);
    await a.authorize(other);
    assert.equal(hook.requests.length, 3, 'unauthorized answer cached');
    clock.advance(11_000);
    await a.authorize(other);
    assert.equal(hook.requests.length, 4, 'expired after unauthorizedTTL');
  });

  test('cacheAuthorizedRequests / cacheUnauthorizedRequests false disable each cache', async () => {
    const a = await authorizer({ cacheAuthorizedRequests: false });
    await a.authorize(attrs());
    await a.authorize(attrs());
    assert.equal(hook.requests.length, 2);
    const b = await authorizer({ cacheUnauthorizedRequests: false });
    hook.setHandler(() => ({ allowed: false }));
    await b.authorize(attrs());
    await b.authorize(attrs());
    assert.equal(hook.requests.length, 4);
  });

  for (const fail of ['http-500', 'garbage', 'hang'] as const) {
    test(`failurePolicy on ${fail}: NoOpinion continues, Deny rejects`, async () => {
      hook.setHandler(() => ({ fail }));
      const over = { timeout: '300ms' };
      const n = await authorizer({ ...over, failurePolicy: 'NoOpinion' });
      const d = await authorizer({ ...over, failurePolicy: 'Deny' });
      const rn = await n.authorize(attrs());
      const rd = await d.authorize(attrs());
      assert.equal(rn.decision, 'no-opinion');
      assert.equal(rd.decision, 'deny');
      assert.match(rd.reason ?? '', /authorization webhook sar failed: /);
      if (fail === 'hang') assert.match(rd.reason ?? '', /no answer within 300ms/);
      if (fail === 'garbage') assert.match(rd.reason ?? '', /response kind is undefined/);
      assert.ok(!(rd.reason ?? '').includes('secret-webhook-token'));
    });
  }

  test('match conditions: any false skips, all true calls, errors follow failurePolicy', async () => {
    const conds = [
      {
        expression:
          "has(request.resourceAttributes) && request.resourceAttributes.namespace == 'team-a'",
      },
      { expression: "request.user != 'bob'" },
    ];
    const a = await authorizer({ matchConditions: conds });
    assert.deepEqual(await a.authorize(attrs()), { decision: 'allow' });
    assert.equal(hook.requests.length, 1);
    assert.deepEqual(await a.authorize(attrs({ namespace: 'team-b' })), { decision: 'no-opinion' });
    assert.deepEqual(await a.authorize(attrs({ user: { username: 'bob', groups: [] } })), {
      decision: 'no-opinion',
    });
    assert.deepEqual(await a.authorize(attrs({ isResourceRequest: false })), {
      decision: 'no-opinion',
    });
    assert.equal(hook.requests.length, 1, 'skipped requests never reach the webhook');
    // An evaluation error (no such key) with no false condition: Deny rejects, NoOpinion skips.
    const erring = [{ expression: "request.resourceAttributes.namespace == 'team-a'" }];
    const deny = await authorizer({ matchConditions: erring, failurePolicy: 'Deny' });
    const skip = await authorizer({ matchConditions: erring, failurePolicy: 'NoOpinion' });
    const nonRes = attrs({ isResourceRequest: false });
    const rd = await deny.authorize(nonRes);
    assert.equal(rd.decision, 'deny');
    assert.match(rd.reason ?? '', /match condition .* failed/);
    assert.equal((await skip.authorize(nonRes)).decision, 'no-opinion');
    assert.equal(hook.requests.length, 1);
    // A false condition wins over an erroring one.
    const mixed = await authorizer({
      matchConditions: [...erring, { expression: 'false' }],
      failurePolicy: 'Deny',
    });
    assert.deepEqual(await mixed.authorize(nonRes), { decision: 'no-opinion' });
  });
});
