// The built agent joins a real plat-apiserver with nothing but a bootstrap token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdir, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  startBootstrapEnv,
  spawnAgent,
  opensslFacts,
  listCsrs,
} from '../../../helpers/bootstrap-env.js';
import { loadConnection } from '../../../../src/common/platconfig/platconfig.js';
import { RestClient } from '../../../../src/agent/client/rest-client.js';
import { createNodeClient } from '../../../../src/agent/client/typed-clients.js';

test('bootstrap with a token, auto-approval and signing; the platconfig works; a restart skips bootstrap', async (t) => {
  const env = await startBootstrapEnv();
  t.after(() => env.stop());
  const agent = await spawnAgent(env);
  t.after(() => agent.stop());
  await agent.waitFor(/client certificate issued and platconfig written/);
  const out = agent.output();
  const order = [
    'Using bootstrap platconfig to generate TLS client cert, key and platconfig file',
    'No valid private key and/or certificate found, reusing existing private key or creating a new one',
    'Waiting for client certificate to be issued',
    'is approved, waiting to be issued',
    'is issued',
  ];
  let at = -1;
  for (const line of order) {
    const i = out.indexOf(line, at + 1);
    assert.ok(i > at, `"${line}" missing or out of order:\n${out}`);
    at = i;
  }
  // cert dir layout and modes
  const files = (await readdir(env.certDir)).sort();
  const clientFiles = files.filter((f) => f.startsWith('nodeagent-client'));
  assert.equal(clientFiles.length, 2, files.join());
  assert.ok(!files.includes('nodeagent-client.key.tmp'));
  const current = join(env.certDir, 'nodeagent-client-current.pem');
  const target = await readlink(current);
  assert.match(target, /^\/.*nodeagent-client-\d{4}(-\d\d){5}\.pem$/);
  assert.equal((await stat(target)).mode & 0o777, 0o600);
  assert.equal((await stat(env.platconfig)).mode & 0o777, 0o600);
  assert.equal((await stat(env.certDir)).mode & 0o777, 0o700);
  // openssl: chain verifies against the cluster CA, subject, usages, key match
  const f = opensslFacts(current, env.api.clusterCaFile);
  assert.match(f.verify, /: OK$/);
  assert.equal(f.subject, 'subject=O=system:nodes,CN=system:node:node-1');
  assert.match(f.extendedKeyUsage, /TLS Web Client Authentication/);
  assert.ok(f.keyMatches);
  const keyUsage = execFileSync('openssl', ['x509', '-in', current, '-noout', '-ext', 'keyUsage'], {
    encoding: 'utf8',
  });
  assert.match(keyUsage, /Digital Signature/);
  // the CSR on the server
  const csrs = await listCsrs(env.api);
  assert.equal(csrs.length, 1);
  assert.match(csrs[0]?.metadata.name ?? '', /^node-csr-/);
  assert.equal(csrs[0]?.spec.signerName, 'platform.io/plat-apiserver-client-platlet');
  // the written platconfig authenticates as the node
  const conn = await loadConnection(env.platconfig);
  assert.equal(conn.certFile, current);
  const rest = new RestClient({ connection: conn });
  t.after(() => rest.close());
  // (as the node itself, once the agent has registered it)
  await agent.waitFor(/successfully registered node|node was already registered/, 30_000);
  const node = await createNodeClient({ client: rest }).get('node-1');
  assert.equal(node.metadata?.name, 'node-1');
  await agent.stop();
  // restart (now with --rotate-certificates): nothing to bootstrap; the rotation manager takes
  // the stored certificate and schedules its renewal
  const again = await spawnAgent(env, ['--rotate-certificates']);
  t.after(() => again.stop());
  await again.waitFor(/Platconfig exists and is valid, skipping bootstrap/);
  await again.waitFor(/client certificate expires \S+, rotation due \S+/);
  await again.waitFor(/node agent starting/);
  assert.doesNotMatch(again.output(), /rotating the client certificate/);
  assert.equal((await listCsrs(env.api)).length, 1);
});

test('approval by hand with kubectl (k8s.io domain, csrsigning only), then denial stops the agent', async (t) => {
  const env = await startBootstrapEnv({
    platformDomain: 'k8s.io',
    args: ['--controllers=csrsigning'],
  });
  t.after(() => env.stop());
  const agent = await spawnAgent(env);
  t.after(() => agent.stop());
  const m = await agent.waitFor(/approve it with: kubectl certificate approve (node-csr-\S+)/);
  const name = m[1] ?? '';
  const kubectl = (...args: string[]): string =>
    execFileSync('kubectl', [`--kubeconfig=${env.api.adminPlatconfig}`, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  assert.match(kubectl('get', 'csr', name), /Pending/);
  kubectl('certificate', 'approve', name);
  await agent.waitFor(/client certificate issued and platconfig written/);
  assert.match(
    opensslFacts(join(env.certDir, 'nodeagent-client-current.pem'), env.api.clusterCaFile).verify,
    /: OK$/,
  );
  await agent.stop();

  // A second node is denied: the agent stops with one line quoting the reason and message.
  const other = await spawnAgent(
    { ...env, platconfig: join(env.dir, 'platconfig-2'), certDir: join(env.dir, 'pki-2') },
    [`--root-dir=${join(env.dir, 'root-2')}`],
    'node-2',
  );
  t.after(() => other.stop());
  const m2 = await other.waitFor(/approve it with: kubectl certificate approve (node-csr-\S+)/);
  kubectl('certificate', 'deny', m2[1] ?? '');
  assert.equal(await other.exited, 1);
  assert.match(
    other.output().replace(/\\"/g, '"'),
    new RegExp(
      `certificate signing request ${m2[1] ?? ''} was denied: reason "KubectlDeny", message "This CSR was denied by kubectl certificate deny\\."`,
    ),
  );
  assert.doesNotMatch(other.output(), /\n\s+at /, 'no stack trace');
});

test('403: the agent says which identity was refused', async (t) => {
  const env = await startBootstrapEnv({ args: ['--authorization-mode=AlwaysDeny'] });
  t.after(() => env.stop());
  const agent = await spawnAgent(env);
  t.after(() => agent.stop());
  assert.equal(await agent.exited, 1);
  assert.match(
    agent.output().replace(/\\"/g, '"'),
    /refused POST \/apis\/certificates\.platform\.io\/v1\/certificatesigningrequests for the bootstrap token "abcdef" \(user "system:bootstrap:abcdef"\) of user "kubelet-bootstrap"/,
  );
  assert.doesNotMatch(agent.output(), /0123456789abcdef/, 'the token secret never appears');
});
