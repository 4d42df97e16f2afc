// The agent's server against the real plat-apiserver: bearer tokens checked by TokenReview and
// requests authorized by SubjectAccessReview at plat-apiserver (--authorization-mode=AlwaysDeny:
// only system:masters is allowed), client certificates issued by the cluster CA; and the API
// server going away (500 with a reason, never an allow).
import { namesFor } from '../../../../src/common/names.js';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { parse } from 'yaml';
import { RestClient } from '../../../../src/agent/client/rest-client.js';
import { loadConnection } from '../../../../src/common/platconfig/platconfig.js';
import { silentLogger } from '../../../../src/common/log/types.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { NodeAgentMetrics } from '../../../../src/agent/server/metrics.js';
import { NodeServers } from '../../../../src/agent/server/node-servers.js';
import {
  ApiSubjectAccessReviewer,
  ApiTokenReviewer,
} from '../../../../src/agent/server/api-reviewers.js';
import { startApiServer, type StartedApiServer } from '../../../helpers/apiserver.js';
import { fetchText } from '../../../helpers/server-https-request.js';
import { ENDPOINTS, FAKE_POD } from '../../../helpers/server-fixture.js';
import { makeCa, makeServing } from '../../../helpers/server-tls-certs.js';

let api: StartedApiServer;
let rest: RestClient;
let base: string;
let servers: NodeServers;
let admin: { cert: string; key: string };
let servingCa: string;
const abort = new AbortController();
let tokensDir: string | undefined;

before(async () => {
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const dir = await mkdtemp(join(tmpdir(), 'nodeagent-tokens-'));
  tokensDir = dir;
  const tokens = join(dir, 'tokens.csv');
  await writeFile(tokens, 'admin-token,root,1,"system:masters"\nviewer-token,viewer,2,"viewers"\n');
  api = await startApiServer({
    args: [`--token-auth-file=${tokens}`, '--authorization-mode=AlwaysDeny'],
    platformDomain: 'k8s.io',
  });
  rest = new RestClient({
    connection: await loadConnection(api.adminPlatconfig),
    retry: { maxRetries: 0 },
  });
  const doc = parse(await readFile(api.adminPlatconfig, 'utf8')) as {
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const u = doc.users[0]!.user;
  admin = {
    cert: Buffer.from(u['client-certificate-data'], 'base64').toString(),
    key: Buffer.from(u['client-key-data'], 'base64').toString(),
  };
  const ca = await makeCa('serving-ca');
  servingCa = ca.certPem;
  const serving = await makeServing(ca);
  servers = new NodeServers({
    nodeName: 'node-a',
    clock: systemClock,
    logger: silentLogger(),
    metrics: new NodeAgentMetrics({ registry: new Registry() }),
    pods: { pods: () => [FAKE_POD] },
    runningPods: { runningPods: () => Promise.resolve([FAKE_POD]) },
    stats: { summary: () => Promise.resolve({ node: { nodeName: 'node-a' }, pods: [] }) },
    containerLogs: { writeLogs: (_r, _o, out) => Promise.resolve(void out.write('log line\n')) },
    commands: {
      run: (_r, cmd) =>
        Promise.resolve({
          stdout: Buffer.from(cmd.join(' ')),
          stderr: Buffer.alloc(0),
          exitCode: 0,
        }),
    },
    configz: () => ({ kind: 'NodeAgentConfiguration' }),
    logDir: dir,
    streamingIdleTimeoutMs: 60_000,
    secure: {
      address: '127.0.0.1',
      port: 0,
      tls: { current: () => ({ cert: serving.certPem, key: serving.keyPem }) },
      enableDebuggingHandlers: true,
      clientCaFile: api.clusterCaFile,
      anonymous: false,
      tokenWebhook: {
        reviewer: new ApiTokenReviewer({ rest, names: namesFor('platform', 'k8s.io') }),
        cacheTtlMs: 120_000,
      },
      authorization: {
        mode: 'Webhook',
        reviewer: new ApiSubjectAccessReviewer({ rest, names: namesFor('platform', 'k8s.io') }),
        authorizedTtlMs: 300_000,
        unauthorizedTtlMs: 30_000,
      },
    },
  });
  const addrs = await servers.start(abort.signal);
  base = `https://127.0.0.1:${addrs.secure?.port}`;
});

after(async () => {
  abort.abort();
  await servers?.stop();
  await rest?.close();
  await api?.stop();
  if (tokensDir !== undefined) await rm(tokensDir, { recursive: true, force: true });
});

test('every endpoint: 401 without or with bad credentials, 403 for a user plat-apiserver denies, 200 for system:masters (token and client certificate)', async () => {
  for (const e of ENDPOINTS) {
    const o = { method: e.method, ca: servingCa };
    const none = await fetchText(base + e.path, o);
    assert.equal(none.status, 401, `${e.path} no credentials`);
    assert.equal(none.body, 'Unauthorized');
    assert.equal(
      (await fetchText(base + e.path, { ...o, token: 'bad-token' })).status,
      401,
      `${e.path} bad token`,
    );
    const viewer = await fetchText(base + e.path, { ...o, token: 'viewer-token' });
    assert.equal(viewer.status, 403, `${e.path} viewer`);
    assert.equal(
      viewer.body,
      `Forbidden (user=viewer, verb=${e.method === 'POST' ? 'create' : 'get'}, resource=nodes, subresource=${e.subresource})`,
    );
    assert.equal(
      (await fetchText(base + e.path, { ...o, token: 'admin-token' })).status,
      200,
      `${e.path} admin token`,
    );
    assert.equal(
      (await fetchText(base + e.path, { ...o, cert: admin.cert, key: admin.key })).status,
      200,
      `${e.path} admin certificate`,
    );
  }
});

test('plat-apiserver down: an unknown token gets 500 with a reason, never an allow; cached answers still hold', async () => {
  await api.stop();
  const r = await fetchText(`${base}/pods`, { ca: servingCa, token: 'never-seen-token' });
  assert.equal(r.status, 500);
  assert.match(r.body, /^Authentication error: token review failed/);
  // The admin's certificate is verified locally, but authorization of a path not asked yet needs the API server.
  const r2 = await fetchText(`${base}/pods?x=1`, {
    ca: servingCa,
    cert: admin.cert,
    key: admin.key,
  });
  assert.equal(
    r2.status,
    200,
    'the cached allow for (admin, get, proxy) still holds within its TTL',
  );
  // A question not asked before (verb delete) needs the API server: 500, not an allow.
  const r3 = await fetchText(`${base}/pods`, {
    method: 'DELETE',
    ca: servingCa,
    cert: admin.cert,
    key: admin.key,
  });
  assert.equal(r3.status, 500);
  assert.match(
    r3.body,
    /^Authorization error \(user=[^,]+, verb=delete, resource=nodes, subresource=proxy\): subject access review failed/,
  );
});
