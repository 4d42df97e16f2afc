// Inputs a careless client sends, answered as a reference kube-apiserver 1.32.13 answers them
// (the status, reason and message below are the reference's): an apply patch whose body lacks
// apiVersion and kind (versionCheckManager), a JSON patch that removes the name (checkName), a
// list whose label selector passes Node's 16 KB header limit (Go's is 1 MB), a watch with a
// negative timeoutSeconds (its timer has fired already: 200, and the stream ends).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startApiServer,
  type ApiResponse,
  type StartedApiServer,
} from '../../helpers/apiserver.js';
import { csrBody, eventBody, makeCsrPem } from '../../helpers/apiserver-fixtures.js';

const events = '/api/v1/namespaces/default/events';
const csrs = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const APPLY = 'application/apply-patch+yaml';
let api: StartedApiServer;

before(async () => {
  api = await startApiServer({ platformDomain: 'k8s.io' });
});
after(async () => {
  await api?.stop();
});

function assertStatus(r: ApiResponse, code: number, reason: string, message: string): void {
  assert.equal(r.status, code, r.text);
  assert.deepEqual(
    { kind: r.json?.['kind'], reason: r.json?.['reason'], message: r.json?.['message'] },
    { kind: 'Status', reason, message },
  );
}

test('an apply patch without apiVersion and kind, or of another kind, is 400 invalid object type; nothing is stored', async () => {
  const body = 'metadata:\n  name: applied\ninvolvedObject: {kind: Pod, name: p}\nreason: R\n';
  const bare = await api.request('PATCH', `${events}/applied?fieldManager=t`, {
    body,
    contentType: APPLY,
  });
  assertStatus(bare, 400, 'BadRequest', 'invalid object type: /, Kind=');
  const other = await api.request('PATCH', `${events}/applied?fieldManager=t`, {
    body: `apiVersion: events.k8s.io/v1\nkind: Event\n${body}`,
    contentType: APPLY,
  });
  assertStatus(other, 400, 'BadRequest', 'invalid object type: events.k8s.io/v1, Kind=Event');
  const kindOnly = await api.request('PATCH', `${events}/applied?fieldManager=t`, {
    body: `kind: Event\n${body}`,
    contentType: APPLY,
  });
  assertStatus(kindOnly, 400, 'BadRequest', 'invalid object type: /, Kind=Event');
  assert.equal((await api.request('GET', `${events}/applied`)).status, 404);
  const whole = await api.request('PATCH', `${events}/applied?fieldManager=t`, {
    body: `apiVersion: v1\nkind: Event\n${body}`,
    contentType: APPLY,
  });
  assert.equal(whole.status, 201, whole.text);
});

test('a JSON patch that removes metadata is 400: the name is undeterminable (an Event and a CSR)', async () => {
  assert.equal(
    (await api.request('POST', events, { body: eventBody('nameless', 'default') })).status,
    201,
  );
  const { csrPem } = await makeCsrPem({ cn: 'parity' });
  const created = await api.request('POST', csrs, {
    body: csrBody('nameless', csrPem, 'example.com/signer', ['digital signature'], {}, 'k8s.io'),
  });
  assert.equal(created.status, 201, created.text);
  for (const path of [`${events}/nameless`, `${csrs}/nameless`]) {
    const r = await api.request('PATCH', path, {
      body: [{ op: 'remove', path: '/metadata' }],
      contentType: 'application/json-patch+json',
    });
    assertStatus(
      r,
      400,
      'BadRequest',
      'the name of the object (nameless based on URL) was undeterminable: name must be provided',
    );
    // a PUT without a name is the same answer (the reference's update handler runs checkName too)
    const current = (await api.request('GET', path)).json ?? {};
    const meta = { ...(current['metadata'] as Record<string, unknown>) };
    delete meta['name'];
    assertStatus(
      await api.request('PUT', path, { body: { ...current, metadata: meta } }),
      400,
      'BadRequest',
      'the name of the object (nameless based on URL) was undeterminable: name must be provided',
    );
  }
});

test('a list with a 21 KB label selector in its query is answered (Go allows 1 MB of headers)', async () => {
  const values = Array.from({ length: 2100 }, (_, i) => `v${String(i).padStart(6, '0')}`);
  const selector = encodeURIComponent(`app in (${values.join(',')})`);
  assert.ok(selector.length > 21_000, String(selector.length));
  const r = await api.request('GET', `${events}?labelSelector=${selector}`);
  assert.equal(r.status, 200, r.text.slice(0, 500));
  assert.equal(r.json?.['kind'], 'EventList');
});

test(
  'a watch with a negative timeoutSeconds is answered 200 at once and ends',
  { timeout: 60_000 },
  async () => {
    // the request resolves only once the stream has ended (without the timeout it would stay open
    // for the server's random [30 min, 60 min) and the test would time out)
    const r = await api.request('GET', `${events}?watch=1&timeoutSeconds=-5`);
    assert.equal(r.status, 200, r.text);
  },
);

test('a patch leaving a CSR request that is not base64 is 422: the patched object does not decode', async () => {
  const { csrPem } = await makeCsrPem({ cn: 'parity-b64' });
  const created = await api.request('POST', csrs, {
    body: csrBody('b64', csrPem, 'example.com/signer', ['digital signature'], {}, 'k8s.io'),
  });
  assert.equal(created.status, 201, created.text);
  const patches: [string, unknown][] = [
    ['application/merge-patch+json', { spec: { request: 'not base64!!' } }],
    ['application/strategic-merge-patch+json', { spec: { request: 'not base64!!' } }],
    [
      'application/json-patch+json',
      [{ op: 'replace', path: '/spec/request', value: 'not base64!!' }],
    ],
  ];
  for (const [contentType, body] of patches) {
    const r = await api.request('PATCH', `${csrs}/b64`, { body, contentType });
    assert.equal(r.status, 422, `${contentType}: ${r.text}`);
    assert.equal(r.json?.['reason'], 'Invalid', contentType);
    // the reference: ` "" is invalid: patch: Invalid value: "<the patched object>": illegal base64 data at input byte 3`
    const message = String(r.json?.['message']);
    assert.ok(message.startsWith(' "" is invalid: patch: Invalid value: "{'), message);
    assert.ok(message.endsWith('}": illegal base64 data at input byte 3'), message);
    assert.ok(message.includes('\\"request\\":\\"not base64!!\\"'), message);
  }
  const after = await api.request('GET', `${csrs}/b64`);
  assert.equal(
    (after.json?.['spec'] as { request: string }).request,
    Buffer.from(csrPem).toString('base64'),
  );
});
