// TokenReview audiences, as the reference answers them: its token-file and OIDC authenticators are
// audience-agnostic (bound to --api-audiences), so a review asking for other audiences is not
// authenticated (no error given), and an authenticated one reports the audiences shared.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';

let withAuds: StartedApiServer;
let without: StartedApiServer;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pa-tr-aud-'));
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'good-token,alice,uid-1,dev\n');
  [withAuds, without] = await Promise.all([
    startApiServer({
      args: [`--token-auth-file=${tokens}`, '--api-audiences=https://plat.example,api'],
    }),
    startApiServer({ args: [`--token-auth-file=${tokens}`] }),
  ]);
});

after(async () => {
  await Promise.all([withAuds.stop(), without.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

type Review = {
  spec: { audiences?: string[] };
  status: {
    authenticated?: boolean;
    audiences?: string[];
    error?: string;
    user?: { username?: string };
  };
};

async function review(api: StartedApiServer, token: string, audiences?: string[]): Promise<Review> {
  const r = await api.request('POST', '/apis/authentication.platform.io/v1/tokenreviews', {
    body: {
      apiVersion: 'authentication.platform.io/v1',
      kind: 'TokenReview',
      spec: { token, ...(audiences ? { audiences } : {}) },
    },
  });
  assert.equal(r.status, 201, r.text);
  return r.json as unknown as Review;
}

test('an authenticated token reports the audiences it shares with --api-audiences', async () => {
  const r = await review(withAuds, 'good-token', ['https://plat.example', 'someone-else']);
  assert.equal(r.status.authenticated, true);
  assert.equal(r.status.user?.username, 'alice');
  assert.deepEqual(r.status.audiences, ['https://plat.example']);
  assert.deepEqual(r.spec.audiences, ['https://plat.example', 'someone-else']);
  // Without spec.audiences the API's own audiences are the target.
  assert.deepEqual((await review(withAuds, 'good-token')).status.audiences, [
    'https://plat.example',
    'api',
  ]);
});

test('a review for audiences the server does not serve is not authenticated, and says nothing more', async () => {
  const r = await review(withAuds, 'good-token', ['https://other.example']);
  assert.equal(r.status.authenticated, false);
  assert.equal(
    r.status.audiences,
    undefined,
    'the requested audiences are not copied into the answer',
  );
  assert.equal(r.status.error, undefined);
  // Without --api-audiences the API audiences are the service-account issuers, as the reference
  // defaults them (here the default --service-account-issuer): asking for another audience is
  // not authenticated either.
  assert.equal(
    (await review(without, 'good-token', ['https://plat.example'])).status.authenticated,
    false,
  );
  assert.equal((await review(without, 'good-token')).status.authenticated, true);
  assert.deepEqual((await review(without, 'good-token')).status.audiences, [
    'https://kubernetes.default.svc.cluster.local',
  ]);
});
