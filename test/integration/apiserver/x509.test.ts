// TLS and client certificates: a serving certificate from --tls-cert-file/--tls-private-key-file,
// client certificates from --client-ca-file authenticate as CN with O as groups, certificates
// from an unknown authority are 401.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import {
  generateCa,
  generateClientCert,
  generateServingCert,
} from '../../../src/apiserver/csr/ca.js';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';

let api: StartedApiServer;
let dir: string;
let servingCaPem = '';
const clients: Record<string, { certPem: string; keyPem: string }> = {};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pa-x509-'));
  const clientCa = await generateCa({ commonName: 'client-ca', validityDays: 1, now: new Date() });
  const otherCa = await generateCa({ commonName: 'other-ca', validityDays: 1, now: new Date() });
  const servingCa = await generateCa({
    commonName: 'serving-ca',
    validityDays: 1,
    now: new Date(),
  });
  servingCaPem = servingCa.certPem;
  const serving = await generateServingCert({
    ca: servingCa,
    hosts: ['127.0.0.1', 'localhost'],
    now: new Date(),
  });
  clients['carol'] = await generateClientCert({
    ca: clientCa,
    commonName: 'carol',
    organizations: ['devs'],
    now: new Date(),
  });
  clients['mallory'] = await generateClientCert({
    ca: otherCa,
    commonName: 'mallory',
    organizations: ['system:masters'],
    now: new Date(),
  });
  writeFileSync(join(dir, 'client-ca.crt'), clientCa.certPem);
  writeFileSync(join(dir, 'tls.crt'), serving.certPem + servingCa.certPem);
  writeFileSync(join(dir, 'tls.key'), serving.keyPem, { mode: 0o600 });
  api = await startApiServer({
    args: [
      `--client-ca-file=${join(dir, 'client-ca.crt')}`,
      `--tls-cert-file=${join(dir, 'tls.crt')}`,
      `--tls-private-key-file=${join(dir, 'tls.key')}`,
      '--authorization-mode=AlwaysDeny',
    ],
  });
});
after(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function as(
  who: string,
  path: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const c = clients[who];
  const agent = new Agent({
    connect: { ca: servingCaPem, ...(c === undefined ? {} : { cert: c.certPem, key: c.keyPem }) },
  });
  try {
    const res = await request(`${api.url}${path}`, { dispatcher: agent });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      body: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : { text },
    };
  } finally {
    await agent.close();
  }
}

test('the given serving certificate is served; the admin file trusts it', async () => {
  assert.equal((await api.request('GET', '/api/v1/namespaces')).status, 200);
  const h = await as('none', '/healthz');
  assert.deepEqual(
    h,
    { status: 200, body: { text: 'ok' } },
    'a client trusting only the serving CA connects',
  );
});

test('a --client-ca-file certificate authenticates as its CN and O', async () => {
  const r = await as('carol', '/api/v1/nodes');
  assert.equal(r.status, 403, 'authenticated, then denied by AlwaysDeny');
  assert.match(String(r.body['message']), /User "carol" cannot list resource "nodes"/);
});

test('a certificate from an unknown authority is 401 even when it claims system:masters', async () => {
  const r = await as('mallory', '/api/v1/nodes');
  assert.equal(r.status, 401);
  assert.equal(r.body['reason'], 'Unauthorized');
});
