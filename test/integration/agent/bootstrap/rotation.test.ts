// Rotation against the real plat-apiserver, in seconds: the CSR minimum lifetime is 600 s, so
// the rotation deadline is injected (a second or two after each issuance) instead of waiting for
// 70-90 % of the lifetime. The client certificate is renewed and swapped into the API client;
// the serving certificate (approved here, as nothing auto-approves the serving signer) is
// renewed and presented by an HTTPS server at the next handshake.
import { namesFor } from '../../../../src/common/names.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import { connect } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  startBootstrapEnv,
  opensslFacts,
  listCsrs,
  decideCsr,
} from '../../../helpers/bootstrap-env.js';
import { startCertificates } from '../../../../src/agent/certificate/setup.js';
import { CsrClient } from '../../../../src/agent/client/csr-client.js';
import { systemClock } from '../../../../src/common/util/clock.js';
import { recordingLogger } from '../../../helpers/recording-logger.js';

async function until<T>(
  f: () => T | undefined | Promise<T | undefined>,
  what: string,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function peerSerial(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, ca, servername: 'node-1' }, () => {
      const serial = s.getPeerCertificate().serialNumber;
      s.end();
      resolve(serial);
    });
    s.on('error', reject);
  });
}

test('client and serving certificates rotate before expiry; the client and the HTTPS server use the new ones', async (t) => {
  const env = await startBootstrapEnv();
  t.after(() => env.stop());
  const logger = recordingLogger();
  const ac = new AbortController();
  t.after(() => ac.abort());
  const setup = await startCertificates({
    platconfigPath: env.platconfig,
    bootstrapPlatconfigPath: env.bootstrapConf,
    certDir: env.certDir,
    nodeName: 'node-1',
    nodeIPs: ['127.0.0.1'],
    names: namesFor('platform', 'platform.io'),
    rotateCertificates: true,
    rotateServerCertificates: true,
    expirationSeconds: 600,
    // Rotate 1.5 s after each issuance, the first (bootstrap) certificate included.
    deadlineFor: () => new Date(Date.now() + 1500),
    clock: systemClock,
    logger,
    signal: ac.signal,
  });
  t.after(() => setup.stop());
  assert.equal(setup.bootstrap.bootstrapped, true);
  const client = setup.client;
  const rest = setup.rest;
  const serving = setup.serving;
  assert.ok(client && rest && serving);
  const first = client.current();
  assert.ok(first);
  const lifetime = (first.info.notAfter.getTime() - first.info.notBefore.getTime()) / 1000;
  assert.ok(lifetime <= 600 + 300, `honours expirationSeconds (got ${lifetime} s)`);

  // client: a new certificate, before the old one expires, and the API client uses it
  const second = await until(
    () => (client.current() !== first ? client.current() : undefined),
    'a rotated client certificate',
  );
  assert.ok(Date.now() < first.info.notAfter.getTime());
  assert.notEqual(second.info.x509.serialNumber, first.info.x509.serialNumber);
  assert.equal(second.info.commonName, 'system:node:node-1');
  const current = join(env.certDir, 'nodeagent-client-current.pem');
  const f = opensslFacts(current, env.api.clusterCaFile);
  assert.match(f.verify, /: OK$/);
  assert.ok(f.keyMatches);
  assert.match(rest.identityDescription, /client certificate "system:node:node-1"/);
  const csrs = new CsrClient({ client: rest, names: namesFor('platform') });
  const list = await csrs.list();
  const rotatedCsrs = list.items.filter(
    (c) =>
      c.spec.signerName === 'platform.io/plat-apiserver-client-platlet' &&
      c.metadata?.name?.startsWith('csr-'),
  );
  assert.ok(rotatedCsrs.length >= 1);
  // the rotation CSRs were made by the node itself with its certificate (not the bootstrap token)
  assert.equal(rotatedCsrs[0]?.spec.username, 'system:node:node-1');

  // serving: approve each serving CSR as it comes; the HTTPS server presents the new ones
  const caPem = (await import('node:fs')).readFileSync(env.api.clusterCaFile, 'utf8');
  const server = createServer({ SNICallback: serving.sniCallback }, (_q, r) => r.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const port = (server.address() as AddressInfo).port;
  const approved = new Set<string>();
  const approver = setInterval(() => {
    void listCsrs(env.api)
      .then(async (items) => {
        for (const c of items) {
          const name = c.metadata.name;
          if (
            c.spec.signerName === 'platform.io/platlet-serving' &&
            !approved.has(name) &&
            !(c.status?.conditions ?? []).length
          ) {
            approved.add(name);
            await decideCsr(
              env.api,
              name,
              'Approved',
              'TestApproved',
              'approved by the rotation test',
            );
          }
        }
      })
      .catch(() => undefined);
  }, 100);
  t.after(() => clearInterval(approver));
  const s1 = await until(() => serving.current(), 'the first serving certificate');
  const serial1 = await peerSerial(port, caPem);
  assert.equal(serial1, new X509Certificate(s1.certPem).serialNumber);
  const s2 = await until(
    () => (serving.current()?.certPem !== s1.certPem ? serving.current() : undefined),
    'a rotated serving certificate',
  );
  const x2 = new X509Certificate(s2.certPem);
  assert.ok(
    Date.now() < new Date(new X509Certificate(s1.certPem).validTo).getTime(),
    'rotated before expiry',
  );
  assert.equal(await peerSerial(port, caPem), x2.serialNumber);
  assert.equal(x2.subjectAltName, 'DNS:node-1, IP Address:127.0.0.1');
  const servingPem = join(env.certDir, 'nodeagent-server-current.pem');
  await writeFile(join(env.dir, 'serving-check.pem'), s2.certPem + s2.keyPem);
  const sf = opensslFacts(servingPem, env.api.clusterCaFile);
  assert.match(sf.verify, /: OK$/);
  assert.match(sf.extendedKeyUsage, /TLS Web Server Authentication/);
  assert.ok(sf.keyMatches);
  assert.ok(approved.size >= 2);
});
