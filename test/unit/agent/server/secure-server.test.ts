import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { fetchH2, fetchText, waitFor } from '../../../helpers/server-https-request.js';
import {
  ENDPOINTS,
  FakeSarReviewer,
  FakeTokenReviewer,
  startServerFixture,
  makeServerCerts,
  type ServerCerts,
  type ServerFixture,
} from '../../../helpers/server-fixture.js';
import { makeServing } from '../../../helpers/server-tls-certs.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

let certs: ServerCerts;
before(async () => {
  certs = await makeServerCerts();
});

/** A server whose webhook authorizer allows alice only, and the fake reviewer it asks. */
async function aliceOnlyServer(): Promise<{
  sar: FakeSarReviewer;
  f: ServerFixture;
}> {
  const sar = new FakeSarReviewer((spec) => spec.user === 'alice');
  const f = await startServerFixture({
    certs,
    anonymous: false,
    authorization: {
      mode: 'Webhook',
      reviewer: sar,
      authorizedTtlMs: 300_000,
      unauthorizedTtlMs: 30_000,
    },
  });
  return { sar, f };
}

test('every endpoint: 401 without credentials, 403 when the webhook denies, 200 when it allows (client certificates)', async (t) => {
  const { sar, f } = await aliceOnlyServer();
  t.after(() => f.stop());
  for (const e of ENDPOINTS) {
    const anon = await fetchText(f.base + e.path, { method: e.method, ca: certs.ca.certPem });
    assert.equal(anon.status, 401, `${e.path} without credentials`);
    assert.equal(anon.body, 'Unauthorized');
    const bob = await fetchText(f.base + e.path, {
      method: e.method,
      ca: certs.ca.certPem,
      cert: certs.bob.certPem,
      key: certs.bob.keyPem,
    });
    assert.equal(bob.status, 403, `${e.path} as bob`);
    const verb = e.method === 'POST' ? 'create' : 'get';
    assert.equal(
      bob.body,
      `Forbidden (user=bob, verb=${verb}, resource=nodes, subresource=${e.subresource})`,
    );
    const alice = await fetchText(f.base + e.path, {
      method: e.method,
      ca: certs.ca.certPem,
      cert: certs.alice.certPem,
      key: certs.alice.keyPem,
    });
    assert.equal(alice.status, 200, `${e.path} as alice: ${alice.body}`);
  }
  // The review carried the reference's attributes.
  const spec = sar.specs.find(
    (s) => s.user === 'alice' && s.resourceAttributes?.subresource === 'stats',
  );
  assert.deepEqual(spec?.resourceAttributes, {
    namespace: '',
    verb: 'get',
    group: '',
    version: 'v1',
    resource: 'nodes',
    subresource: 'stats',
    name: 'node-a',
  });
  assert.deepEqual(spec?.groups, ['devs', 'system:authenticated']);
});

test('every endpoint with bearer tokens through TokenReview; bad tokens are 401 even with anonymous on', async (t) => {
  const tokens = new FakeTokenReviewer();
  tokens.users.set('good-token', { username: 'tina', groups: ['ops'] });
  tokens.users.set('weak-token', { username: 'walt', groups: [] });
  const sar = new FakeSarReviewer((spec) => spec.user === 'tina');
  const f = await startServerFixture({
    certs,
    anonymous: true,
    tokens,
    authorization: {
      mode: 'Webhook',
      reviewer: sar,
      authorizedTtlMs: 300_000,
      unauthorizedTtlMs: 30_000,
    },
  });
  t.after(() => f.stop());
  for (const e of ENDPOINTS) {
    const bad = await fetchText(f.base + e.path, {
      method: e.method,
      ca: certs.ca.certPem,
      token: 'nope',
    });
    assert.equal(bad.status, 401, `${e.path} bad token`);
    const weak = await fetchText(f.base + e.path, {
      method: e.method,
      ca: certs.ca.certPem,
      token: 'weak-token',
    });
    assert.equal(weak.status, 403, `${e.path} weak token`);
    assert.match(weak.body, /^Forbidden \(user=walt, /);
    const good = await fetchText(f.base + e.path, {
      method: e.method,
      ca: certs.ca.certPem,
      token: 'good-token',
    });
    assert.equal(good.status, 200, `${e.path} good token`);
    // Anonymous (no credentials at all) is authenticated, then denied by the webhook.
    const anon = await fetchText(f.base + e.path, { method: e.method, ca: certs.ca.certPem });
    assert.equal(anon.status, 403, `${e.path} anonymous`);
    assert.match(anon.body, /^Forbidden \(user=system:anonymous, /);
  }
  // Three distinct tokens were reviewed once each: the cache answered the rest.
  assert.equal(tokens.calls, 3);
});

test('AlwaysAllow with anonymous access: every endpoint answers 200 and the bodies are right', async (t) => {
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
  });
  t.after(() => f.stop());
  for (const e of ENDPOINTS) {
    const r = await fetchText(f.base + e.path, { method: e.method, ca: certs.ca.certPem });
    assert.equal(r.status, 200, `${e.path}: ${r.body}`);
  }
  const pods = JSON.parse((await fetchText(`${f.base}/pods`, { ca: certs.ca.certPem })).body) as {
    kind: string;
    items: { metadata: { name: string } }[];
  };
  assert.equal(pods.kind, 'PodList');
  assert.equal(pods.items[0]?.metadata.name, 'web');
  assert.equal((await fetchText(`${f.base}/healthz`, { ca: certs.ca.certPem })).body, 'ok');
  const metrics = (await fetchText(`${f.base}/metrics`, { ca: certs.ca.certPem })).body;
  assert.match(metrics, /nodeagent_certificate_manager_server_ttl_seconds 3600/);
  assert.match(metrics, /nodeagent_pod_start_duration_seconds_bucket/);
  assert.match(metrics, /nodeagent_sync_loop_duration_seconds_bucket/);
  assert.match(metrics, /nodeagent_http_requests_total\{code="200",server="secure",verb="get"\}/);
  const configz = (await fetchText(`${f.base}/configz`, { ca: certs.ca.certPem })).body;
  assert.doesNotMatch(configz, /s3cret/);
  assert.match(configz, /"nodeagentconfig"/);
  const logs = await fetchText(
    `${f.base}/containerLogs/default/web/c?tailLines=1&timestamps=true`,
    { ca: certs.ca.certPem },
  );
  assert.equal(logs.body, '2026-01-01T00:00:02Z three\n');
  assert.equal(
    (await fetchText(`${f.base}/containerLogs/default/nope/c`, { ca: certs.ca.certPem })).status,
    404,
  );
  assert.equal(
    (
      await fetchText(`${f.base}/containerLogs/default/web/c?tailLines=-1`, {
        ca: certs.ca.certPem,
      })
    ).status,
    400,
  );
  assert.equal(
    (await fetchText(`${f.base}/logs/syslog`, { ca: certs.ca.certPem })).body,
    'hello from the node log\n',
  );
  assert.equal(
    (await fetchText(`${f.base}/logs/..%2f..%2fetc%2fpasswd`, { ca: certs.ca.certPem })).status,
    404,
    'paths stay inside the log directory',
  );
  assert.equal(
    (
      await fetchText(`${f.base}/run/default/web/c?cmd=echo%20hi`, {
        method: 'POST',
        ca: certs.ca.certPem,
      })
    ).body,
    'echo hi\n',
  );
  assert.equal((await fetchText(`${f.base}/nothing-here`, { ca: certs.ca.certPem })).status, 404);
});

test('HTTP/2 is offered as the reference kubelet offers it: every endpoint over h2 with the same authentication and authorization, logs whole', async (t) => {
  const { f } = await aliceOnlyServer();
  t.after(() => f.stop());
  const as = (who: 'alice' | 'bob') => ({
    ca: certs.ca.certPem,
    cert: certs[who].certPem,
    key: certs[who].keyPem,
  });
  for (const e of ENDPOINTS) {
    const anon = await fetchH2(f.base + e.path, { method: e.method, ca: certs.ca.certPem });
    assert.equal(anon.protocol, 'h2');
    assert.equal(anon.status, 401, `${e.path} without credentials`);
    const bob = await fetchH2(f.base + e.path, { method: e.method, ...as('bob') });
    assert.equal(bob.status, 403, `${e.path} as bob`);
    const alice = await fetchH2(f.base + e.path, { method: e.method, ...as('alice') });
    assert.equal(alice.status, 200, `${e.path} as alice: ${alice.body}`);
  }
  const logs = await fetchH2(`${f.base}/containerLogs/default/web/c?timestamps=true`, as('alice'));
  assert.equal(logs.body.split('\n').at(-2), '2026-01-01T00:00:02Z three');
  assert.equal((await fetchH2(`${f.base}/containerLogs/default/nope/c`, as('alice'))).status, 404);
  // exec, attach and portForward upgrade over HTTP/1.1, which stays offered
  assert.equal((await fetchText(`${f.base}/healthz`, as('alice'))).body, 'ok');
});

test('bad, expired, unknown and wrong-usage client certificates are 401', async (t) => {
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
  });
  t.after(() => f.stop());
  for (const [name, leaf] of [
    ['expired', certs.expired],
    ['unknown CA', certs.unknown],
    ['server-only usage', certs.serverOnly],
  ] as const) {
    const r = await fetchText(`${f.base}/pods`, {
      ca: certs.ca.certPem,
      cert: leaf.certPem,
      key: leaf.keyPem,
    });
    assert.equal(r.status, 401, name);
    assert.equal(r.body, 'Unauthorized');
  }
});

test('debugging handlers disabled: 405 "Debug endpoints are disabled."; others still served', async (t) => {
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
    enableDebuggingHandlers: false,
  });
  t.after(() => f.stop());
  for (const e of ENDPOINTS) {
    const r = await fetchText(f.base + e.path, { method: e.method, ca: certs.ca.certPem });
    if (e.debug) {
      assert.equal(r.status, 405, e.path);
      assert.equal(r.body, 'Debug endpoints are disabled.\n');
    } else {
      assert.equal(r.status, 200, e.path);
    }
  }
});

test('read-only server (no auth, no debugging handlers) and healthz server', async (t) => {
  const f = await startServerFixture({
    certs,
    anonymous: false,
    authorization: { mode: 'AlwaysAllow' },
    readOnly: true,
    healthz: true,
  });
  t.after(() => f.stop());
  assert.ok(f.readOnlyBase !== undefined && f.healthzBase !== undefined);
  for (const e of ENDPOINTS) {
    const r = await fetchText(f.readOnlyBase + e.path, { method: e.method });
    assert.equal(r.status, e.debug ? 404 : 200, `read-only ${e.path}`);
  }
  assert.equal((await fetchText(`${f.healthzBase}/healthz`)).body, 'ok');
  assert.equal((await fetchText(`${f.healthzBase}/pods`)).status, 404);
  // The secure server still wants credentials.
  assert.equal((await fetchText(`${f.base}/pods`, { ca: certs.ca.certPem })).status, 401);
});

test('the client CA file is reloaded when it changes', async (t) => {
  const logger = recordingLogger();
  const f = await startServerFixture({
    certs,
    anonymous: false,
    authorization: { mode: 'AlwaysAllow' },
    logger,
  });
  t.after(() => f.stop());
  const carol = {
    ca: certs.ca.certPem,
    cert: certs.otherAlice.certPem,
    key: certs.otherAlice.keyPem,
  };
  const alice = { ca: certs.ca.certPem, cert: certs.alice.certPem, key: certs.alice.keyPem };
  assert.equal((await fetchText(`${f.base}/pods`, carol)).status, 401);
  assert.equal((await fetchText(`${f.base}/pods`, alice)).status, 200);
  // Replace the file the way tools do (write aside, rename over).
  const tmp = join(f.dir, 'client-ca.pem.tmp');
  await writeFile(tmp, certs.otherCa.certPem);
  await rename(tmp, f.caFile);
  await waitFor(
    async () => (await fetchText(`${f.base}/pods`, carol)).status === 200,
    'the new CA to be trusted',
  );
  assert.equal((await fetchText(`${f.base}/pods`, alice)).status, 401);
  // A broken file keeps the last good bundle (and says so).
  await writeFile(f.caFile, 'not a certificate');
  await waitFor(
    () =>
      logger.lines.some(
        (l) => l.level === 'warn' && l.msg.includes('client CA file is not usable'),
      ),
    'the broken file to be noticed',
  );
  assert.equal((await fetchText(`${f.base}/pods`, carol)).status, 200);
});

test('TokenReview or SubjectAccessReview down: 500 with a reason, never an allow', async (t) => {
  const tokens = new FakeTokenReviewer();
  tokens.users.set('good-token', { username: 'tina', groups: [] });
  const sar = new FakeSarReviewer(() => true);
  const f = await startServerFixture({
    certs,
    anonymous: true,
    tokens,
    authorization: { mode: 'Webhook', reviewer: sar, authorizedTtlMs: 0, unauthorizedTtlMs: 0 },
  });
  t.after(() => f.stop());
  tokens.down = true;
  const r1 = await fetchText(`${f.base}/pods`, { ca: certs.ca.certPem, token: 'other-token' });
  assert.equal(r1.status, 500);
  assert.match(r1.body, /^Authentication error: token review failed: connect ECONNREFUSED/);
  assert.doesNotMatch(r1.body, /other-token/);
  tokens.down = false;
  sar.down = true;
  const r2 = await fetchText(`${f.base}/pods`, { ca: certs.ca.certPem, token: 'good-token' });
  assert.equal(r2.status, 500);
  assert.match(
    r2.body,
    /^Authorization error \(user=tina, verb=get, resource=nodes, subresource=proxy\): subject access review failed/,
  );
  const r3 = await fetchText(`${f.base}/pods`, {
    ca: certs.ca.certPem,
    cert: certs.alice.certPem,
    key: certs.alice.keyPem,
  });
  assert.equal(r3.status, 500);
});

test('huge headers are refused with 431', async (t) => {
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
  });
  t.after(() => f.stop());
  const ok = await fetchText(`${f.base}/healthz`, {
    ca: certs.ca.certPem,
    headers: { 'x-big': 'a'.repeat(512 * 1024) },
  });
  assert.equal(ok.status, 200);
  const big = await fetchText(`${f.base}/healthz`, {
    ca: certs.ca.certPem,
    headers: { 'x-big': 'a'.repeat(1100 * 1024) },
  });
  assert.equal(big.status, 431);
  // the reference's (Go net/http): the status again as the plain-text body
  assert.equal(big.body, '431 Request Header Fields Too Large');
  assert.equal(big.headers['content-type'], 'text/plain; charset=utf-8');
  // The read-only server has the same limit.
  const ro = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
    readOnly: true,
  });
  t.after(() => ro.stop());
  assert.equal(
    (
      await fetchText(`${ro.readOnlyBase}/healthz`, {
        headers: { 'x-big': 'a'.repeat(1100 * 1024) },
      })
    ).status,
    431,
  );
});

test('tls-min-version is enforced and the serving certificate rotates without a restart', async (t) => {
  let serving = { cert: certs.serving.certPem, key: certs.serving.keyPem };
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
    tlsMinVersion: 'VersionTLS13',
    serving: () => serving,
  });
  t.after(() => f.stop());
  await assert.rejects(
    fetchText(`${f.base}/healthz`, { ca: certs.ca.certPem, maxVersion: 'TLSv1.2' }),
  );
  const first = await fetchText(`${f.base}/healthz`, { ca: certs.ca.certPem });
  assert.equal(first.status, 200);
  const next = await makeServing(certs.ca, 'node-a-rotated');
  serving = { cert: next.certPem, key: next.keyPem };
  const second = await fetchText(`${f.base}/healthz`, { ca: certs.ca.certPem });
  assert.equal(second.status, 200);
  assert.notEqual(second.peerFingerprint, first.peerFingerprint);
  await assert.rejects(
    fetchText(`${f.base}/healthz`, { ca: certs.ca.certPem, maxVersion: 'TLSv1.2' }),
  );
});

test('enableSystemLogHandler false: /logs/ is not served (404), the other debugging handlers are', async (t) => {
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
    systemLogHandler: false,
  });
  t.after(() => f.stop());
  assert.equal((await fetchText(`${f.base}/logs/syslog`, { ca: certs.ca.certPem })).status, 404);
  assert.equal((await fetchText(`${f.base}/logs/`, { ca: certs.ca.certPem })).status, 404);
  assert.equal((await fetchText(`${f.base}/runningpods/`, { ca: certs.ca.certPem })).status, 200);
});
