// The BUILT agent's authentication and authorization over time: the client CA file replaced under
// a running standalone agent (no restart), and the TokenReview / SubjectAccessReview caches of an
// agent joined to plat-apiserver honouring their TTLs once plat-apiserver is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { startApiServer } from '../../../helpers/apiserver.js';
import { fetchText, waitFor } from '../../../helpers/server-https-request.js';
import { makeCa, makeLeaf } from '../../../helpers/server-tls-certs.js';
import { freePort } from '../../../helpers/processes.js';
import { NO_CGROUPS_ARGS } from '../../../helpers/agent-cgroups.js';
import { testPodLogsArgs } from '../../../helpers/agent-pod-logs.js';
import {
  startAgent as startAgentProcess,
  type RunningAgent,
} from '../../../helpers/agent-process.js';

function startAgent(args: string[]): RunningAgent {
  return startAgentProcess([
    '--container-runtime-endpoint=process://',
    '--fail-cgroupv1=false',
    ...NO_CGROUPS_ARGS,
    '--address=127.0.0.1',
    '--read-only-port=0',
    '--healthz-port=0',
    ...args,
  ]);
}

async function waitUp(base: string, output: () => string): Promise<void> {
  await waitFor(
    async () => (await fetchText(`${base}/healthz`).catch(() => ({ status: 0 }))).status !== 0,
    'the agent server',
    30_000,
    100,
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}\n--- agent output ---\n${output().slice(-3000)}`);
  });
}

test('the client CA file is re-read when it is replaced under the running agent', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nodeagent-ca-rot-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const caA = await makeCa('ca-a');
  const caB = await makeCa('ca-b');
  const alice = await makeLeaf(caA, { subject: 'CN=alice', usage: 'client' });
  const bob = await makeLeaf(caB, { subject: 'CN=bob', usage: 'client' });
  const caFile = join(dir, 'client-ca.pem');
  await writeFile(caFile, caA.certPem);
  const port = await freePort();
  const agent = startAgent([
    ...testPodLogsArgs(dir),
    `--root-dir=${join(dir, 'root')}`,
    `--cert-dir=${join(dir, 'pki')}`,
    '--hostname-override=ca-node',
    `--port=${port}`,
    `--client-ca-file=${caFile}`,
    '--anonymous-auth=false',
    '--authorization-mode=AlwaysAllow',
  ]);
  t.after(() => agent.stop());
  const base = `https://127.0.0.1:${port}`;
  await waitUp(base, agent.output);
  const as = (l: { certPem: string; keyPem: string }) =>
    fetchText(`${base}/pods`, { cert: l.certPem, key: l.keyPem });
  assert.equal((await fetchText(`${base}/pods`)).status, 401);
  assert.equal((await as(alice)).status, 200);
  assert.equal((await as(bob)).status, 401);
  await writeFile(join(dir, 'next.pem'), caB.certPem);
  await rename(join(dir, 'next.pem'), caFile);
  await waitFor(
    async () => (await as(bob)).status === 200,
    'the new CA to be trusted',
    10_000,
    100,
  );
  assert.equal((await as(alice)).status, 401, 'the old CA is no longer trusted');
});

test('webhook answers are cached for their TTLs and no longer: after that, with plat-apiserver gone, 500', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'nodeagent-ttl-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const tokens = join(dir, 'tokens.csv');
  await writeFile(tokens, 'admin-token,root,1,"system:masters"\nviewer-token,viewer,2,"viewers"\n');
  const api = await startApiServer({
    args: [`--token-auth-file=${tokens}`, '--authorization-mode=AlwaysDeny'],
    platformDomain: 'k8s.io',
  });
  t.after(() => api.stop());
  const port = await freePort();
  const agent = startAgent([
    `--platconfig=${api.adminPlatconfig}`,
    '--platform-domain=k8s.io',
    ...testPodLogsArgs(dir, 'k8s.io'),
    `--root-dir=${join(dir, 'root')}`,
    `--cert-dir=${join(dir, 'pki')}`,
    '--hostname-override=ttl-node',
    `--port=${port}`,
    '--anonymous-auth=false',
    '--authentication-token-webhook',
    '--authentication-token-webhook-cache-ttl=6s',
    '--authorization-mode=Webhook',
    '--authorization-webhook-cache-authorized-ttl=4s',
    '--authorization-webhook-cache-unauthorized-ttl=2s',
    `--client-ca-file=${api.clusterCaFile}`,
  ]);
  t.after(() => agent.stop());
  const base = `https://127.0.0.1:${port}`;
  await waitUp(base, agent.output);
  const doc = parse(readFileSync(api.adminPlatconfig, 'utf8')) as {
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const admin = {
    cert: Buffer.from(doc.users[0]!.user['client-certificate-data'], 'base64').toString(),
    key: Buffer.from(doc.users[0]!.user['client-key-data'], 'base64').toString(),
  };
  // Prime the caches: the admin's certificate allowed, the viewer's token denied. Each clock is
  // read before the request that fills its entry, so each age below is at least the entry's.
  const allowed = Date.now();
  assert.equal((await fetchText(`${base}/pods`, admin)).status, 200);
  const denied = Date.now();
  assert.equal((await fetchText(`${base}/pods`, { token: 'viewer-token' })).status, 403);
  assert.equal((await fetchText(`${base}/pods`, admin)).status, 200);
  await api.stop();
  assert.equal(
    (await fetchText(`${base}/pods`, admin)).status,
    200,
    'allowed answer served from the cache',
  );
  assert.equal(
    (await fetchText(`${base}/pods`, { token: 'viewer-token' })).status,
    403,
    'denied answer served from the cache',
  );
  await waitFor(
    async () => (await fetchText(`${base}/pods`, { token: 'viewer-token' })).status === 500,
    'the denied answer to expire',
    10_000,
    100,
  );
  const deniedAge = Date.now() - denied;
  assert.ok(deniedAge >= 1_800, `the denied answer lasted ${deniedAge} ms (TTL 2s)`);
  assert.equal(
    (await fetchText(`${base}/pods`, admin)).status,
    200,
    'the allowed answer outlives the denied one',
  );
  await waitFor(
    async () => (await fetchText(`${base}/pods`, admin)).status === 500,
    'the allowed answer to expire',
    10_000,
    100,
  );
  const allowedAge = Date.now() - allowed;
  assert.ok(
    allowedAge >= 3_800 && allowedAge < 9_000,
    `the allowed answer lasted ${allowedAge} ms (TTL 4s)`,
  );
  const r = await fetchText(`${base}/pods`, admin);
  assert.match(
    r.body,
    /^Authorization error \(user=[^,]+, verb=get, resource=nodes, subresource=proxy\): subject access review failed/,
  );
});
