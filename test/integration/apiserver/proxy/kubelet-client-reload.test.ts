// --kubelet-client-certificate/--kubelet-client-key are re-read when the files change (on the
// Clock): the next connection plat-apiserver opens to an agent presents the new certificate. A
// half-replaced pair (the key of another certificate) is not taken; the previous pair stays.
// The agent here is a TLS server that asks for a client certificate and answers with its CN.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { silentLogger } from '../../../../src/common/log/types.js';
import { dialAgent, readBody, type AgentTls } from '../../../../src/apiserver/proxy/agent-dial.js';
import { prepareKubeletClient } from '../../../../src/apiserver/proxy/kubelet-client.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { waitFor } from '../../../helpers/server-https-request.js';
import { makeCa, makeLeaf, makeServing } from '../../../helpers/server-tls-certs.js';

async function whoAmI(port: number, tls: AgentTls): Promise<string> {
  const answer = await dialAgent({
    target: { host: '127.0.0.1', port, path: '/whoami' },
    tls,
    method: 'GET',
    headers: {},
  });
  assert.equal(answer.kind, 'response');
  if (answer.kind !== 'response') return '';
  return (await readBody(answer.response, 1024)).toString();
}

async function replace(file: string, pem: string): Promise<void> {
  await writeFile(`${file}.tmp`, pem);
  await rename(`${file}.tmp`, file);
}

test('the kubelet client certificate files are re-read when they change; a mismatched pair is not taken', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'plat-kubelet-client-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ca = await makeCa('kubelet-client-ca');
  const first = await makeLeaf(ca, { subject: 'CN=first-client', usage: 'client' });
  const second = await makeLeaf(ca, { subject: 'CN=second-client', usage: 'client' });
  const serving = await makeServing(ca);
  const agent: Server = createServer(
    {
      cert: serving.certPem,
      key: serving.keyPem,
      ca: ca.certPem,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      res.end(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? ''));
    },
  );
  await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => agent.close(() => resolve())));
  const port = (agent.address() as AddressInfo).port;
  const certFile = join(dir, 'client.crt');
  const keyFile = join(dir, 'client.key');
  await writeFile(certFile, first.certPem);
  await writeFile(keyFile, first.keyPem);
  const caFile = join(dir, 'ca.crt');
  await writeFile(caFile, ca.certPem);
  const clock = new ManualClock();
  const stop = new AbortController();
  t.after(() => stop.abort());
  const flags = {
    certDir: dir,
    kubeletClientCertificate: certFile,
    kubeletClientKey: keyFile,
    kubeletCertificateAuthority: caFile,
  };
  const tls = await prepareKubeletClient(
    flags,
    { certPem: ca.certPem, keyPem: ca.keyPem },
    'kubernetes',
    { logger: silentLogger(), clock, signal: stop.signal, checkIntervalMs: 1000 },
  );
  assert.equal(await whoAmI(port, tls), 'first-client');

  // Half replaced: the new certificate with the old key. Not taken; the next check tries again.
  await replace(certFile, second.certPem);
  await clock.waitForSleepers(1);
  clock.advance(1000);
  await clock.waitForSleepers(1);
  assert.equal(await whoAmI(port, tls), 'first-client');
  await replace(keyFile, second.keyPem);
  clock.advance(1000);
  await waitFor(
    async () => (await whoAmI(port, tls)) === 'second-client',
    'a connection with the new certificate',
    5_000,
    20,
  );

  // At start a missing file is one error naming both flags.
  await assert.rejects(
    prepareKubeletClient(
      { ...flags, kubeletClientCertificate: join(dir, 'nope.crt') },
      { certPem: ca.certPem, keyPem: ca.keyPem },
      'kubernetes',
      { logger: silentLogger(), clock, signal: stop.signal },
    ),
    /cannot read the kubelet client certificate \(--kubelet-client-certificate .*nope\.crt, --kubelet-client-key .*client\.key\): ENOENT/,
  );
});
