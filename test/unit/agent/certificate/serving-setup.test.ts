import { namesFor } from '../../../../src/common/names.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile, readdir, stat, utimes } from 'node:fs/promises';
import { createServer } from 'node:https';
import { connect } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { startCertificates } from '../../../../src/agent/certificate/setup.js';
import {
  FileServingSource,
  NO_SERVING_CERTIFICATE,
  type ServingCertificateSource,
} from '../../../../src/agent/certificate/serving.js';
import { generatePrivateKey } from '../../../../src/agent/certificate/keys.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { FakeCsrApi } from '../../../helpers/fake-csr-api.js';
import { TestCa } from '../../../helpers/test-ca.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { waitFor } from '../../../helpers/server-https-request.js';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'serving-'));
  t.after(() => rm(d, { recursive: true, force: true }));
  return d;
}

/** Opens a TLS connection and returns the peer certificate's subject CN, or the error. */
function handshake(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(
      { host: '127.0.0.1', port, ca, servername: 'node-1', checkServerIdentity: () => undefined },
      () => {
        const cn = s.getPeerCertificate().subject.CN;
        s.end();
        resolve(String(cn));
      },
    );
    s.on('error', reject);
  });
}

async function httpsWith(
  t: { after(fn: () => Promise<void>): void },
  source: ServingCertificateSource,
  onTlsError: (e: Error) => void,
): Promise<number> {
  const server = createServer({ SNICallback: source.sniCallback }, (_req, res) => res.end('ok'));
  server.on('tlsClientError', onTlsError);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return (server.address() as AddressInfo).port;
}

test('rotated serving certificate: handshakes fail until it exists, then present it; SANs from host and IPs', async (t) => {
  const dir = await tempDir(t);
  const ca = await TestCa.create();
  const api = await FakeCsrApi.start({ ca, autoApprove: false });
  t.after(() => api.stop());
  await writeFile(join(dir, 'ca.crt'), ca.certPem);
  const k = await generatePrivateKey();
  const clientCert = await ca.sign(k, {
    commonName: 'system:node:node-1',
    organizations: ['system:nodes'],
    notBefore: new Date(Date.now() - 1000),
    notAfter: new Date(Date.now() + 3600_000),
  });
  await writeFile(join(dir, 'client.pem'), clientCert + k.pem);
  await writeFile(
    join(dir, 'p.conf'),
    `clusters: [{name: c, cluster: {server: "${api.url}", certificate-authority: ca.crt}}]\nusers: [{name: u, user: {client-certificate: client.pem, client-key: client.pem, token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
  );
  const logger = recordingLogger();
  const registry = new Registry();
  const setup = await startCertificates({
    platconfigPath: join(dir, 'p.conf'),
    certDir: join(dir, 'pki'),
    nodeName: 'node-1',
    nodeIPs: ['10.0.0.2', '10.0.0.1', '10.0.0.2'],
    names: namesFor('platform', 'platform.io'),
    rotateCertificates: false,
    rotateServerCertificates: true,
    clock: systemClock,
    logger,
    registry,
  });
  t.after(() => setup.stop());
  assert.equal(setup.bootstrap.bootstrapped, false);
  const errors: Error[] = [];
  const port = await httpsWith(t, setup.serving!, (e) => errors.push(e));
  await assert.rejects(handshake(port, ca.certPem));
  assert.ok(
    errors.some((e) => e.message.includes(NO_SERVING_CERTIFICATE)),
    errors.map((e) => e.message).join(),
  );
  // The serving CSR: signer, usages, SANs sorted and deduplicated.
  const until = Date.now() + 10_000;
  while (api.csrs.size === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  const [name, csr] = [...api.csrs.entries()][0] ?? [];
  assert.ok(name?.startsWith('csr-'));
  assert.equal(csr?.spec.signerName, 'platform.io/platlet-serving');
  assert.deepEqual(csr?.spec.usages, ['digital signature', 'server auth']);
  api.approve(name ?? '');
  while (!setup.serving?.current() && Date.now() < until)
    await new Promise((r) => setTimeout(r, 20));
  assert.equal(await handshake(port, ca.certPem), 'system:node:node-1');
  const ttl = setup.serving?.ttlSeconds() ?? 0;
  assert.ok(ttl > 3500 && ttl <= 3600);
  assert.match(
    await registry.metrics(),
    /nodeagent_certificate_manager_server_ttl_seconds 3[56]\d\d/,
  );
  const files = await readdir(join(dir, 'pki'));
  assert.ok(files.includes('nodeagent-server-current.pem'));
  const { X509Certificate } = await import('node:crypto');
  assert.equal(
    new X509Certificate(setup.serving?.current()?.certPem ?? '').subjectAltName,
    'DNS:node-1, IP Address:10.0.0.1, IP Address:10.0.0.2',
  );
});

test('no serving CSR without an IP', async (t) => {
  const dir = await tempDir(t);
  const ca = await TestCa.create();
  const api = await FakeCsrApi.start({ ca, autoApprove: true });
  t.after(() => api.stop());
  await writeFile(
    join(dir, 'p.conf'),
    `clusters: [{name: c, cluster: {server: "${api.url}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
  );
  const logger = recordingLogger();
  const setup = await startCertificates({
    platconfigPath: join(dir, 'p.conf'),
    certDir: join(dir, 'pki'),
    nodeName: 'node-1',
    nodeIPs: [],
    names: namesFor('platform', 'platform.io'),
    rotateCertificates: false,
    rotateServerCertificates: true,
    clock: systemClock,
    logger,
  });
  t.after(() => setup.stop());
  const until = Date.now() + 5000;
  while (!logger.lines.some((l) => l.msg.includes('no IP address')) && Date.now() < until)
    await new Promise((r) => setTimeout(r, 20));
  assert.ok(
    logger.lines.some((l) =>
      l.msg.includes('cannot request a server certificate yet (the node has no IP address'),
    ),
  );
  assert.equal(api.csrs.size, 0);
  assert.equal(setup.serving?.current(), undefined);
});

test('standalone mode (no --platconfig): no API request at all, self-signed serving pair', async (t) => {
  const dir = await tempDir(t);
  const ca = await TestCa.create();
  const api = await FakeCsrApi.start({ ca, autoApprove: true });
  t.after(() => api.stop());
  await writeFile(
    join(dir, 'b.conf'),
    `clusters: [{name: c, cluster: {server: "${api.url}"}}]\nusers: [{name: u, user: {token: abcdef.0123456789abcdef}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
  );
  const setup = await startCertificates({
    bootstrapPlatconfigPath: join(dir, 'b.conf'),
    certDir: join(dir, 'pki'),
    nodeName: 'node-1',
    nodeIPs: ['127.0.0.1'],
    names: namesFor('platform', 'platform.io'),
    rotateCertificates: true,
    rotateServerCertificates: true,
    clock: systemClock,
    logger: recordingLogger(),
  });
  t.after(() => setup.stop());
  assert.equal(setup.rest, undefined);
  assert.equal(setup.client, undefined);
  assert.deepEqual((await readdir(join(dir, 'pki'))).sort(), ['nodeagent.crt', 'nodeagent.key']);
  const errors: Error[] = [];
  const port = await httpsWith(t, setup.serving!, (e) => errors.push(e));
  const crt = setup.serving?.current()?.certPem ?? '';
  const caPart = crt.slice(crt.indexOf('-----END CERTIFICATE-----') + 26);
  assert.match(await handshake(port, caPart), /^node-1@/);
  // Stopped, every loop has ended: whatever it would have asked the API server, it has asked.
  await setup.stop();
  assert.equal(api.requests.length, 0);
});

test('--tls-cert-file/--tls-private-key-file are served and reloaded when they change', async (t) => {
  const dir = await tempDir(t);
  const ca = await TestCa.create();
  const mk = async (cn: string): Promise<void> => {
    const k = await generatePrivateKey();
    await writeFile(
      join(dir, 'tls.crt'),
      await ca.sign(k, {
        commonName: cn,
        usage: 'server auth',
        ipAddresses: ['127.0.0.1'],
        notBefore: new Date(Date.now() - 1000),
        notAfter: new Date(Date.now() + 3600_000),
      }),
    );
    await writeFile(join(dir, 'tls.key'), k.pem);
  };
  await mk('first');
  const clock = new ManualClock(new Date());
  const src = await FileServingSource.open({
    certFile: join(dir, 'tls.crt'),
    keyFile: join(dir, 'tls.key'),
    clock,
    logger: recordingLogger(),
    reloadIntervalMs: 60_000,
  });
  t.after(() => src.stop());
  const port = await httpsWith(t, src, () => undefined);
  assert.equal(await handshake(port, ca.certPem), 'first');
  await mk('second');
  // Files are told apart by mtime and size: make the change visible whatever the clock's grain.
  const later = new Date(Date.now() + 5000);
  await utimes(join(dir, 'tls.crt'), later, later);
  // Nothing is re-read until the check period has passed on the clock.
  await clock.waitForSleepers(1);
  assert.equal(await handshake(port, ca.certPem), 'first');
  clock.advance(60_000);
  await waitFor(
    async () => (await handshake(port, ca.certPem)) === 'second',
    'the new certificate served',
  );
  const first = src.current();
  clock.advance(60_000);
  await clock.waitForSleepers(1);
  assert.equal(src.current(), first, 'unchanged files: the same pair');
  await assert.rejects(
    FileServingSource.open({
      certFile: join(dir, 'missing.crt'),
      keyFile: join(dir, 'tls.key'),
      clock: systemClock,
      logger: recordingLogger(),
    }),
    /cannot read the serving certificate \(--tls-cert-file .*missing\.crt, --tls-private-key-file .*tls\.key\): ENOENT/,
  );
  assert.equal((await stat(join(dir, 'tls.crt'))).isFile(), true);
});
