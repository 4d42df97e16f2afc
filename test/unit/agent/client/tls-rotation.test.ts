import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { RestClient } from '../../../../src/agent/client/rest-client.js';
import { generatePrivateKey } from '../../../../src/agent/certificate/keys.js';
import { TestCa } from '../../../helpers/test-ca.js';

test('TLS with CA and client certificate; setClientCertificate swaps it and closes pooled connections', async (t) => {
  const ca = await TestCa.create();
  const now = Date.now();
  const serverKey = await generatePrivateKey();
  const serverCert = await ca.sign(serverKey, {
    commonName: 'api',
    usage: 'server auth',
    ipAddresses: ['127.0.0.1'],
    notBefore: new Date(now - 1000),
    notAfter: new Date(now + 3600_000),
  });
  const mk = async (cn: string): Promise<{ cert: string; key: string }> => {
    const k = await generatePrivateKey();
    return {
      cert: await ca.sign(k, {
        commonName: cn,
        notBefore: new Date(now - 1000),
        notAfter: new Date(now + 3600_000),
      }),
      key: k.pem,
    };
  };
  const a = await mk('system:node:a');
  const b = await mk('system:node:b');
  let closedSockets = 0;
  const server = createServer(
    {
      cert: serverCert,
      key: serverKey.pem,
      ca: ca.certPem,
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      const cn = (req.socket as TLSSocket).getPeerCertificate().subject.CN;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ cn }));
    },
  );
  server.on('secureConnection', (s) => s.on('close', () => closedSockets++));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rest = new RestClient({
    connection: {
      server: url,
      caPem: ca.certPem,
      certPem: a.cert,
      keyPem: a.key,
      insecureSkipTlsVerify: false,
      userName: 'default-auth',
      source: 'p.conf',
    },
  });
  t.after(() => rest.close());
  assert.match(
    rest.identityDescription,
    /client certificate "system:node:a" of user "default-auth"/,
  );
  assert.deepEqual(await rest.request({ path: '/x' }), { cn: 'system:node:a' });
  assert.deepEqual(await rest.request({ path: '/x' }), { cn: 'system:node:a' });
  assert.equal(closedSockets, 0, 'the connection is pooled');
  rest.setClientCertificate(b.cert, b.key, 'system:node:b');
  assert.deepEqual(await rest.request({ path: '/x' }), { cn: 'system:node:b' });
  const until = Date.now() + 5000;
  while (closedSockets < 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  assert.ok(closedSockets >= 1, 'the old pooled connections were closed');
  assert.match(
    rest.identityDescription,
    /client certificate "system:node:b" of user "default-auth" in p.conf/,
  );
  // a client that does not trust the server's CA fails with a TLS hint
  const wrong = new RestClient({
    connection: {
      server: url,
      insecureSkipTlsVerify: false,
      userName: 'u',
      source: 'p.conf',
      token: 't',
    },
    retry: { maxRetries: 0 },
  });
  t.after(() => wrong.close());
  await assert.rejects(
    wrong.request({ path: '/x' }),
    /TLS failure: .* \(check the certificate-authority of the platconfig\)/,
  );
  assert.equal(rest.closedSignal.aborted, false);
  await rest.close();
  assert.equal(rest.closedSignal.aborted, true);
});
