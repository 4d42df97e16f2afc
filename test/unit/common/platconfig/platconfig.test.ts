import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  clientCertPlatconfig,
  loadConnection,
  loadPlatconfig,
  parsePlatconfig,
  writePlatconfig,
} from '../../../../src/common/platconfig/index.js';
import { PlatconfigError } from '../../../../src/common/util/errors.js';

const PEM = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'platconfig-'));
  t.after(() => rm(d, { recursive: true, force: true }));
  return d;
}

test('reads clusters, users, contexts and resolves relative paths against the file', async (t) => {
  const d = await tempDir(t);
  await writeFile(join(d, 'ca.crt'), PEM);
  await writeFile(join(d, 'token'), 'abcdef.0123456789abcdef\n');
  await writeFile(
    join(d, 'b.conf'),
    `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443/", certificate-authority: ca.crt, tls-server-name: api}
users:
- name: u
  user: {tokenFile: ./token}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`,
  );
  const conn = await loadConnection(join(d, 'b.conf'));
  assert.equal(conn.server, 'https://127.0.0.1:6443');
  assert.equal(conn.caPem, PEM);
  assert.equal(conn.caFile, join(d, 'ca.crt'));
  assert.equal(conn.tlsServerName, 'api');
  assert.equal(conn.token, 'abcdef.0123456789abcdef');
  assert.equal(conn.userName, 'u');
  assert.equal(conn.insecureSkipTlsVerify, false);
});

test('data fields are base64 PEM; an inline token wins', async (t) => {
  const d = await tempDir(t);
  const b64 = Buffer.from(PEM).toString('base64');
  await writeFile(
    join(d, 'p.conf'),
    `clusters: [{name: c, cluster: {server: "https://h:1", certificate-authority-data: ${b64}, insecure-skip-tls-verify: true}}]
users: [{name: u, user: {client-certificate-data: ${b64}, client-key-data: ${b64}, token: t1}}]
contexts: [{name: x, context: {cluster: c, user: u}}, {name: "y", context: {cluster: c, user: nope}}]
current-context: x
`,
  );
  const conn = await loadConnection(join(d, 'p.conf'));
  assert.equal(conn.caPem, PEM);
  assert.equal(conn.certPem, PEM);
  assert.equal(conn.keyPem, PEM);
  assert.equal(conn.token, 't1');
  assert.equal(conn.insecureSkipTlsVerify, true);
  await assert.rejects(
    loadConnection(join(d, 'p.conf'), { context: 'y' }),
    /user "nope" of context "y" not found/,
  );
  await assert.rejects(
    loadConnection(join(d, 'p.conf'), { context: 'z' }),
    /context "z" not found; defined contexts: x, y/,
  );
});

test('clear errors for a missing file, cluster, credential, and malformed YAML', async (t) => {
  const d = await tempDir(t);
  await assert.rejects(
    loadPlatconfig(join(d, 'missing.conf')),
    (e: unknown) => e instanceof PlatconfigError && /missing.conf does not exist/.test(e.message),
  );
  await writeFile(join(d, 'bad.conf'), 'clusters: [\n');
  await assert.rejects(loadPlatconfig(join(d, 'bad.conf')), /is not valid YAML/);
  await writeFile(join(d, 'empty.conf'), '');
  await assert.rejects(loadPlatconfig(join(d, 'empty.conf')), /is empty/);
  await writeFile(
    join(d, 'nocl.conf'),
    'contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
  );
  await assert.rejects(
    loadConnection(join(d, 'nocl.conf')),
    /cluster "c" of context "x" not found/,
  );
  await writeFile(
    join(d, 'nocred.conf'),
    'clusters: [{name: c, cluster: {server: "https://h:1"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
  );
  await assert.rejects(loadConnection(join(d, 'nocred.conf')), /user "u" has no credential/);
  await writeFile(join(d, 'nocur.conf'), 'clusters: []\n');
  await assert.rejects(loadConnection(join(d, 'nocur.conf')), /has no current-context/);
  await writeFile(
    join(d, 'nokey.conf'),
    'clusters: [{name: c, cluster: {server: "https://h:1"}}]\nusers: [{name: u, user: {client-certificate: cert.pem}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
  );
  await assert.rejects(
    loadConnection(join(d, 'nokey.conf')),
    /client-certificate .*cert.pem does not exist/,
  );
  await writeFile(join(d, 'cert.pem'), PEM);
  await assert.rejects(
    loadConnection(join(d, 'nokey.conf')),
    /has a client certificate but no client-key/,
  );
  await writeFile(
    join(d, 'badserver.conf'),
    'clusters: [{name: c, cluster: {server: "h:1:x"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
  );
  await assert.rejects(loadConnection(join(d, 'badserver.conf')), /must use https/);
});

test('writes atomically with mode 0600 and the bootstrap layout round-trips', async (t) => {
  const d = await tempDir(t);
  await writeFile(join(d, 'ca.crt'), PEM);
  await writeFile(join(d, 'cur.pem'), PEM);
  const cfg = clientCertPlatconfig({
    server: 'https://127.0.0.1:1',
    caFile: join(d, 'ca.crt'),
    certFile: join(d, 'cur.pem'),
    keyFile: join(d, 'cur.pem'),
  });
  await writePlatconfig(join(d, 'p.conf'), cfg);
  assert.equal((await stat(join(d, 'p.conf'))).mode & 0o777, 0o600);
  assert.deepEqual((await readdir(d)).sort(), ['ca.crt', 'cur.pem', 'p.conf']);
  const back = await loadPlatconfig(join(d, 'p.conf'));
  assert.equal(back.config['current-context'], 'default-context');
  assert.equal(back.config.users[0]?.name, 'default-auth');
  assert.equal(back.config.clusters[0]?.name, 'default-cluster');
  const conn = await loadConnection(join(d, 'p.conf'));
  assert.equal(conn.certFile, join(d, 'cur.pem'));
  assert.equal(conn.keyFile, join(d, 'cur.pem'));
  assert.deepEqual(
    await parsePlatconfig(
      await (await import('node:fs/promises')).readFile(join(d, 'p.conf'), 'utf8'),
      join(d, 'p.conf'),
    ),
    back.config,
  );
});
