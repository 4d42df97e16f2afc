// CertificateSigningRequest: every transition of the spec's state table, the condition rules,
// certificate rules, create validation, and the two controllers (auto-approval of node client
// CSRs, signing for the three well-known signers, Failed when the signer refuses).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { csrBody, makeCsrPem } from '../../helpers/apiserver-fixtures.js';

let api: StartedApiServer;
const G = 'certificates.platform.io';
const base = `/apis/${G}/v1/certificatesigningrequests`;
const CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];

type Obj = Record<string, unknown>;
const status = (o: Obj | undefined): Obj => (o?.['status'] ?? {}) as Obj;
const conditions = (o: Obj | undefined): Obj[] => (status(o)['conditions'] ?? []) as Obj[];

async function create(
  name: string,
  signer: string,
  usages = CLIENT_USAGES,
  cn = name,
  orgs: string[] = [],
  extra: Obj = {},
  san: { dnsNames?: string[]; ipAddresses?: string[] } = {},
): Promise<Obj> {
  const { csrPem } = await makeCsrPem({ cn, orgs, ...san });
  const r = await api.request('POST', base, { body: csrBody(name, csrPem, signer, usages, extra) });
  assert.equal(r.status, 201, r.text);
  return r.json ?? {};
}

async function waitFor(name: string, pred: (o: Obj) => boolean, ms = 10_000): Promise<Obj> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await api.request('GET', `${base}/${name}`);
    if (r.json !== undefined && pred(r.json)) return r.json;
    if (Date.now() > deadline) throw new Error(`condition not reached for ${name}: ${r.text}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

function approve(obj: Obj, type = 'Approved'): Obj {
  return {
    ...obj,
    status: {
      ...status(obj),
      conditions: [
        ...conditions(obj),
        { type, status: 'True', reason: 'Test', message: `${type} by test` },
      ],
    },
  };
}

before(async () => {
  api = await startApiServer();
});
after(async () => {
  await api?.stop();
});

test('no condition -> Approved through /approval (kubectl style); times are filled', async () => {
  const c = await create('t-approve', 'example.com/custom');
  const r = await api.request('PUT', `${base}/t-approve/approval`, { body: approve(c) });
  assert.equal(r.status, 200, r.text);
  const cond = conditions(r.json)[0] ?? {};
  assert.equal(cond['type'], 'Approved');
  assert.match(String(cond['lastUpdateTime']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.match(String(cond['lastTransitionTime']), /Z$/);
  const g = await api.request('GET', `${base}/t-approve/approval`);
  assert.equal(g.status, 200);
  assert.equal(conditions(g.json).length, 1);
});

test('no condition -> Denied; Approved and Denied are mutually exclusive; conditions cannot be removed', async () => {
  const c = await create('t-deny', `platform.io/plat-apiserver-client`);
  const d = await api.request('PUT', `${base}/t-deny/approval`, { body: approve(c, 'Denied') });
  assert.equal(d.status, 200, d.text);
  const both = await api.request('PUT', `${base}/t-deny/approval`, {
    body: approve(d.json ?? {}, 'Approved'),
  });
  assert.equal(both.status, 422);
  assert.match(
    String(both.json?.['message']),
    /Approved and Denied conditions are mutually exclusive/,
  );
  const removed = await api.request('PUT', `${base}/t-deny/approval`, {
    body: { ...d.json, status: { conditions: [] } },
  });
  assert.equal(removed.status, 422);
  assert.match(
    String(removed.json?.['message']),
    /updates may not remove a condition of type "Denied"/,
  );
  const later = await api.request('GET', `${base}/t-deny`);
  assert.equal(status(later.json)['certificate'], undefined, 'a denied request is never issued');
});

test('Approved -> certificate through /status; immutable once set; not settable elsewhere', async () => {
  const c = await create('t-cert', 'example.com/custom');
  const a = await api.request('PUT', `${base}/t-cert/approval`, { body: approve(c) });
  const pem = readFileSync(api.clusterCaFile, 'utf8');
  const b64 = Buffer.from(pem).toString('base64');
  const viaMain = await api.request('PUT', `${base}/t-cert`, {
    body: { ...a.json, status: { ...status(a.json), certificate: b64 } },
  });
  assert.equal(viaMain.status, 200, viaMain.text);
  assert.equal(
    status(viaMain.json)['certificate'],
    undefined,
    'the main resource keeps the stored status',
  );
  const viaApproval = await api.request('PUT', `${base}/t-cert/approval`, {
    body: { ...viaMain.json, status: { ...status(viaMain.json), certificate: b64 } },
  });
  assert.equal(viaApproval.status, 200);
  assert.equal(
    status(viaApproval.json)['certificate'],
    undefined,
    '/approval takes only the conditions',
  );
  const s = await api.request('PUT', `${base}/t-cert/status`, {
    body: { ...viaApproval.json, status: { ...status(viaApproval.json), certificate: b64 } },
  });
  assert.equal(s.status, 200, s.text);
  assert.equal(status(s.json)['certificate'], b64);
  const again = await api.request('PUT', `${base}/t-cert/status`, {
    body: {
      ...s.json,
      status: { ...status(s.json), certificate: Buffer.from(pem + pem).toString('base64') },
    },
  });
  assert.equal(again.status, 422);
  assert.match(
    String(again.json?.['message']),
    /updates may not modify existing certificate content/,
  );
  const badPem = await api.request('PUT', `${base}/t-approve/status`, {
    body: {
      ...a.json,
      metadata: { name: 't-approve' },
      status: { certificate: Buffer.from('not a pem').toString('base64') },
    },
  });
  assert.equal(badPem.status, 422, badPem.text);
});

test('Failed through /status; /status may not add Approved', async () => {
  const c = await create('t-fail', 'example.com/custom');
  const f = await api.request('PUT', `${base}/t-fail/status`, { body: approve(c, 'Failed') });
  assert.equal(f.status, 200, f.text);
  assert.equal(conditions(f.json)[0]?.['type'], 'Failed');
  const sneaky = await api.request('PUT', `${base}/t-fail/status`, {
    body: approve(f.json ?? {}, 'Approved'),
  });
  assert.equal(sneaky.status, 422, sneaky.text);
});

test('spec is immutable: the main resource restores it; metadata changes are kept', async () => {
  const c = await create('t-immutable', 'example.com/custom');
  const spec = { ...(c['spec'] as Obj), signerName: 'example.com/other' };
  const r = await api.request('PUT', `${base}/t-immutable`, {
    body: { ...c, metadata: { ...(c['metadata'] as Obj), labels: { a: 'b' } }, spec },
  });
  assert.equal(r.status, 200, r.text);
  assert.equal((r.json?.['spec'] as Obj)['signerName'], 'example.com/custom');
  assert.deepEqual((r.json?.['metadata'] as Obj)['labels'], { a: 'b' });
});

test('create validation: PEM, signer name, usages, expirationSeconds', async () => {
  const { csrPem } = await makeCsrPem({ cn: 'x' });
  const cases: [Obj, RegExp][] = [
    [
      csrBody(
        'v1',
        '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
        'example.com/a',
        CLIENT_USAGES,
      ),
      /spec\.request/,
    ],
    [
      csrBody('v2', csrPem, 'no-slash', CLIENT_USAGES),
      /must be a fully qualified domain and path of the form 'example\.com\/signer-name'/,
    ],
    [
      csrBody('v3', csrPem, 'example.com/a', ['client auth', 'flying']),
      /Unsupported value: "flying"/,
    ],
    [
      csrBody('v4', csrPem, 'example.com/a', CLIENT_USAGES, { expirationSeconds: 599 }),
      /may not specify a duration less than 600 seconds \(10 minutes\)/,
    ],
    [
      csrBody('v5', csrPem, 'example.com/a', ['client auth', 'client auth']),
      /Duplicate value: "client auth"/,
    ],
  ];
  for (const [body, re] of cases) {
    const r = await api.request('POST', base, { body });
    assert.equal(r.status, 422, r.text);
    assert.equal(r.json?.['reason'], 'Invalid');
    assert.match(
      String(r.json?.['message']),
      /^CertificateSigningRequest\.certificates\.platform\.io "v\d" is invalid: /,
    );
    assert.match(String(r.json?.['message']), re);
    assert.ok(Array.isArray((r.json?.['details'] as Obj)['causes']));
  }
  assert.equal((await api.request('GET', `${base}/v1`)).status, 404, 'nothing stored');
});

test('csrapproving + csrsigning: a node client CSR is approved and issued within milliseconds', async () => {
  const started = Date.now();
  await create(
    'node-client',
    'platform.io/plat-apiserver-client-platlet',
    ['digital signature', 'client auth'],
    'system:node:n1',
    ['system:nodes'],
    { expirationSeconds: 3600 },
  );
  const done = await waitFor('node-client', (o) => typeof status(o)['certificate'] === 'string');
  const elapsed = Date.now() - started;
  assert.ok(elapsed < 5000, `took ${elapsed} ms`);
  const approved = conditions(done).find((c) => c['type'] === 'Approved');
  assert.equal(approved?.['reason'], 'AutoApproved');
  assert.equal(
    approved?.['message'],
    'Auto approving platlet client certificate after SubjectAccessReview.',
  );
  const cert = new X509Certificate(Buffer.from(String(status(done)['certificate']), 'base64'));
  assert.ok(
    cert.verify(new X509Certificate(readFileSync(api.clusterCaFile)).publicKey),
    'issued by the cluster CA',
  );
  assert.match(cert.subject, /CN=system:node:n1/);
  const lifetime = (Date.parse(cert.validTo) - Date.now()) / 1000;
  assert.ok(lifetime > 3000 && lifetime <= 3600, `lifetime ${lifetime}`);
});

test('serving and plain client CSRs are never auto-approved; approved ones are signed; a refused one gets Failed', async () => {
  const serving = await create(
    'serving',
    'platform.io/platlet-serving',
    ['digital signature', 'server auth'],
    'system:node:n1',
    ['system:nodes'],
    {},
    { dnsNames: ['n1.example'], ipAddresses: ['10.0.0.1'] },
  );
  const client = await create(
    'client',
    'platform.io/plat-apiserver-client',
    CLIENT_USAGES,
    'carol',
  );
  const noSans = await create(
    'serving-nosan',
    'platform.io/platlet-serving',
    ['digital signature', 'server auth'],
    'system:node:n1',
    ['system:nodes'],
  );
  // Give the controllers a chance to (wrongly) act, then check nothing was approved.
  await create(
    'marker',
    'platform.io/plat-apiserver-client-platlet',
    ['digital signature', 'client auth'],
    'system:node:m',
    ['system:nodes'],
  );
  await waitFor('marker', (o) => typeof status(o)['certificate'] === 'string');
  for (const n of ['serving', 'client', 'serving-nosan']) {
    const r = await api.request('GET', `${base}/${n}`);
    assert.equal(conditions(r.json).length, 0, `${n} not auto-approved`);
  }
  for (const o of [serving, client, noSans]) {
    const n = String((o['metadata'] as Obj)['name']);
    assert.equal(
      (await api.request('PUT', `${base}/${n}/approval`, { body: approve(o) })).status,
      200,
    );
  }
  const s = await waitFor('serving', (o) => typeof status(o)['certificate'] === 'string');
  const sc = new X509Certificate(Buffer.from(String(status(s)['certificate']), 'base64'));
  assert.match(String(sc.subjectAltName), /n1\.example/);
  await waitFor('client', (o) => typeof status(o)['certificate'] === 'string');
  const f = await waitFor('serving-nosan', (o) =>
    conditions(o).some((c) => c['type'] === 'Failed'),
  );
  const failed = conditions(f).find((c) => c['type'] === 'Failed');
  assert.equal(failed?.['reason'], 'SignerValidationFailure');
  assert.equal(status(f)['certificate'], undefined);
});
