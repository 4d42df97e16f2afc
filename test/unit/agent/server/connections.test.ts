import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import {
  FakeTokenReviewer,
  makeServerCerts,
  startServerFixture,
  type ServerCerts,
} from '../../../helpers/server-fixture.js';

let certs: ServerCerts;
before(async () => {
  certs = await makeServerCerts();
});

/** Opens a request and reports what arrived and when the connection closed. */
function openStream(
  url: string,
  ca: string,
): Promise<{ status: number; body: string; closedAfterMs: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('close', () =>
        resolve({ status: res.statusCode ?? 0, body, closedAfterMs: Date.now() - started }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

test('a followed log is closed after the streaming connection idle timeout', async (t) => {
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
    streamingIdleTimeoutMs: 300,
  });
  t.after(() => f.stop());
  const r = await openStream(`${f.base}/containerLogs/default/web/c?follow=true`, certs.ca.certPem);
  assert.equal(r.status, 200);
  assert.equal(r.body, 'one\ntwo\nthree\n');
  assert.ok(r.closedAfterMs >= 250 && r.closedAfterMs < 5000, `closed after ${r.closedAfterMs} ms`);
});

test('every connection is closed at the maximum connection age, even while streaming', async (t) => {
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
    streamingIdleTimeoutMs: 0,
    maxConnectionAgeMs: 400,
  });
  t.after(() => f.stop());
  const r = await openStream(`${f.base}/containerLogs/default/web/c?follow=1`, certs.ca.certPem);
  assert.equal(r.status, 200);
  assert.ok(r.closedAfterMs >= 350 && r.closedAfterMs < 5000, `closed after ${r.closedAfterMs} ms`);
});

test('a malformed Authorization header is 401; /healthz/syncloop and verbose healthz', async (t) => {
  const tokens = new FakeTokenReviewer();
  const f = await startServerFixture({
    certs,
    anonymous: true,
    tokens,
    authorization: { mode: 'AlwaysAllow' },
  });
  t.after(() => f.stop());
  const { fetchText } = await import('../../../helpers/server-https-request.js');
  assert.equal(
    (
      await fetchText(`${f.base}/pods`, {
        ca: certs.ca.certPem,
        headers: { authorization: 'Basic abc' },
      })
    ).status,
    401,
  );
  assert.equal(tokens.calls, 0);
  assert.equal(
    (await fetchText(`${f.base}/healthz/syncloop`, { ca: certs.ca.certPem })).body,
    'ok',
  );
  assert.equal(
    (await fetchText(`${f.base}/healthz?verbose`, { ca: certs.ca.certPem })).body,
    '[+]ping ok\n[+]syncloop ok\nhealthz check passed\n',
  );
  assert.equal((await fetchText(`${f.base}/healthz/nope`, { ca: certs.ca.certPem })).status, 404);
});

test('tls-cipher-suites limits TLS 1.2 suites (the spec names mapped to OpenSSL names)', async (t) => {
  const { tlsOptionsFor } = await import('../../../../src/agent/config/tls-ciphers.js');
  const mapped = tlsOptionsFor(['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'], 'VersionTLS12');
  assert.equal(mapped.ciphers, 'ECDHE-ECDSA-AES256-GCM-SHA384');
  const f = await startServerFixture({
    certs,
    anonymous: true,
    authorization: { mode: 'AlwaysAllow' },
    tlsMinVersion: 'VersionTLS12',
    tlsCipherSuites: mapped.ciphers!.split(':'),
  });
  t.after(() => f.stop());
  const { fetchText } = await import('../../../helpers/server-https-request.js');
  const tls12 = (ciphers: string) =>
    new Promise<string>((resolve, reject) => {
      const req = request(
        `${f.base}/healthz`,
        { ca: certs.ca.certPem, agent: false, maxVersion: 'TLSv1.2', ciphers },
        (res) => {
          const c = (res.socket as TLSSocket).getCipher().name;
          res.resume();
          res.on('end', () => resolve(c));
        },
      );
      req.on('error', reject);
      req.end();
    });
  assert.equal(
    await tls12('ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256'),
    'ECDHE-ECDSA-AES256-GCM-SHA384',
  );
  await assert.rejects(
    tls12('ECDHE-ECDSA-AES128-GCM-SHA256'),
    'a suite outside the list is refused',
  );
  // TLS 1.3 stays available, as in the reference (its suites are not configurable there).
  assert.equal((await fetchText(`${f.base}/healthz`, { ca: certs.ca.certPem })).status, 200);
});
