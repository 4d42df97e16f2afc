// Inputs a careless client sends, answered as a reference kube-apiserver 1.32.13 answers them
// (the status, reason and message below are the reference's): an apply patch whose body lacks
// apiVersion and kind (versionCheckManager), a JSON patch that removes the name (checkName), a
// list whose label selector passes Node's 16 KB header limit (Go's is 1 MB), a watch with a
// negative timeoutSeconds (its timer has fired already: 200, and the stream ends).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
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
  // the reference: ` "" is invalid: patch: Invalid value: "map[spec:map[request:not base64!!]]": error decoding from json: illegal base64 data at input byte 3`
  const strategic = await api.request('PATCH', `${csrs}/b64`, {
    body: { spec: { request: 'not base64!!' } },
    contentType: 'application/strategic-merge-patch+json',
  });
  assert.equal(strategic.status, 422, strategic.text);
  assert.equal(
    strategic.json?.['message'],
    ' "" is invalid: patch: Invalid value: "map[spec:map[request:not base64!!]]": error decoding from json: illegal base64 data at input byte 3',
  );
  const after = await api.request('GET', `${csrs}/b64`);
  assert.equal(
    (after.json?.['spec'] as { request: string }).request,
    Buffer.from(csrPem).toString('base64'),
  );
});

// The reference 1.32.13 (kube-apiserver, this ConfigMap made by `kubectl create configmap cm
// --from-literal=a=b`), for the merge patch below answered:
//  "" is invalid: patch: Invalid value: "{\"apiVersion\":\"v1\",\"binaryData\":{\"z\":\"not base64!!\"},
//  \"data\":{\"a\":\"b\",\"x\":\"y\"},\"kind\":\"ConfigMap\",\"metadata\":{\"creationTimestamp\":\"...\",
//  \"labels\":{\"a\":\"2\",\"b\":\"1\"},\"managedFields\":[{\"manager\":\"kubectl-create\",\"operation\":
//  \"Update\",\"apiVersion\":\"v1\",\"time\":\"...\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:data\":
//  {\".\":{},\"f:a\":{}}}}],\"name\":\"cm\",\"namespace\":\"p2\",\"resourceVersion\":\"204\",\"uid\":\"...\"}}":
//  illegal base64 data at input byte 3
// (objects the patch went into sorted, the rest as stored, metadata in ObjectMeta's order); for
// the JSON patch the same with `<&>` as \u003c\u0026\u003e and untouched metadata in ObjectMeta's
// order; for the strategic merge patch the patch as Go prints the decoded map.
test('the 422 for a patched object that does not decode quotes it as the reference does, per patch type', async () => {
  const cms = '/api/v1/namespaces/default/configmaps';
  const created = await api.request('POST', `${cms}?fieldManager=kubectl-create`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-b64' }, data: { a: 'b' } },
  });
  assert.equal(created.status, 201, created.text);
  const m = created.json?.['metadata'] as Record<string, string>;
  const mf = `[{"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"${m['creationTimestamp']}","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:a":{}}}}]`;
  const quote = (s: string): string => JSON.stringify(s); // no character here that Go quotes otherwise
  const cases: [string, string, string][] = [
    [
      'application/merge-patch+json',
      '{"data":{"x":"y"},"binaryData":{"z":"not base64!!"},"metadata":{"labels":{"b":"1","a":"2"}}}',
      `Invalid value: ${quote(`{"apiVersion":"v1","binaryData":{"z":"not base64!!"},"data":{"a":"b","x":"y"},"kind":"ConfigMap","metadata":{"creationTimestamp":"${m['creationTimestamp']}","labels":{"a":"2","b":"1"},"managedFields":${mf},"name":"cm-b64","namespace":"default","resourceVersion":"${m['resourceVersion']}","uid":"${m['uid']}"}}`)}: illegal base64 data at input byte 3`,
    ],
    [
      'application/json-patch+json',
      '[{"op":"add","path":"/binaryData","value":{"z":"not base64!!","a":"<&>"}}]',
      `Invalid value: ${quote(`{"apiVersion":"v1","binaryData":{"z":"not base64!!","a":"\\u003c\\u0026\\u003e"},"data":{"a":"b"},"kind":"ConfigMap","metadata":{"name":"cm-b64","namespace":"default","uid":"${m['uid']}","resourceVersion":"${m['resourceVersion']}","creationTimestamp":"${m['creationTimestamp']}","managedFields":${mf}}}`)}: illegal base64 data at input byte 3`,
    ],
    [
      'application/strategic-merge-patch+json',
      '{"data":{"x":"y"},"binaryData":{"z":"not base64!!"},"metadata":{"labels":{"b":"1","a":"2"}},"n":1000000,"f":1.5,"l":[1,"a",true,null]}',
      'Invalid value: "map[binaryData:map[z:not base64!!] data:map[x:y] f:1.5 l:[1 a true <nil>] metadata:map[labels:map[a:2 b:1]] n:1000000]": error decoding from json: illegal base64 data at input byte 3',
    ],
  ];
  for (const [contentType, body, detail] of cases) {
    const r = await api.request('PATCH', `${cms}/cm-b64`, { body, contentType });
    assert.equal(r.status, 422, `${contentType}: ${r.text}`);
    assert.equal(r.json?.['message'], ` "" is invalid: patch: ${detail}`, contentType);
    assert.deepEqual(r.json?.['details'], {
      causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'patch' }],
    });
  }
});

// The reference 1.32.13's unstructured converter words for a strategic merge patch whose result
// does not fit an Event (each answer read from it with the same patch).
test('a strategic merge patch whose result does not decode gets the converter words of the reference', async () => {
  const created = await api.request('POST', events, { body: eventBody('conv', 'default') });
  assert.equal(created.status, 201, created.text);
  const cases: [unknown, string][] = [
    [{ count: 'x' }, 'unrecognized type: int32'],
    [{ count: true }, 'unrecognized type: int32'],
    [{ count: 1.5 }, 'cannot convert float64 to int32'],
    [{ reason: 5 }, 'cannot convert int64 to string'],
    [{ reason: true }, 'unrecognized type: string'],
    [{ reason: 1.5 }, 'unrecognized type: string'],
    [{ involvedObject: 'x' }, 'cannot restore struct from: string'],
    [{ involvedObject: 5 }, 'cannot restore struct from: int64'],
    [{ related: [1] }, 'cannot restore struct from: slice'],
    [{ metadata: { labels: { a: 1 } } }, 'cannot convert int64 to string'],
    [{ metadata: { labels: 'x' } }, 'cannot restore map from string'],
    [{ metadata: { finalizers: 'x' } }, 'cannot restore slice from string'],
    [{ eventTime: 5 }, 'json: cannot unmarshal number into Go value of type string'],
  ];
  for (const [patch, words] of cases) {
    const r = await api.request('PATCH', `${events}/conv`, {
      body: patch,
      contentType: 'application/strategic-merge-patch+json',
    });
    assert.equal(r.status, 422, r.text);
    const message = String(r.json?.['message']);
    assert.ok(message.endsWith(`]": ${words}`), `${JSON.stringify(patch)}: ${message}`);
  }
});

// The reference 1.32.13 gives a client-certificate user the certificate's SHA-256 as its
// credential id; a CSR made with kubectl by its admin carried
// spec.extra {"authentication.kubernetes.io/credential-id": ["X509SHA256=32e6b3ba...c312d339"]}
// (the hex of sha256 over the admin certificate's DER).
test('a client-certificate user has the X509SHA256 credential id in its extra, as the reference', async (t) => {
  const k8s = await startApiServer({ args: ['--platform-profile=kubernetes'] });
  t.after(() => k8s.stop());
  const der = new X509Certificate(k8s.adminTls.cert).raw;
  const id = `X509SHA256=${createHash('sha256').update(der).digest('hex')}`;
  const r = await k8s.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  assert.equal(r.status, 201, r.text);
  const userInfo = (r.json?.['status'] as { userInfo: Record<string, unknown> }).userInfo;
  assert.deepEqual(userInfo['extra'], { 'authentication.kubernetes.io/credential-id': [id] });
});
