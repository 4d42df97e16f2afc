// Hostile paths, resourceVersions, times and integers against the real plat-apiserver.
// Every expectation names the reference's answer (kube-apiserver 1.32); where we answer
// differently the comment says so and why. Each of these failed on the code before the fix:
// `%2e` deleted every CSR, `events/..` read the namespace, `%zz` was a 500, a 23-digit
// resourceVersion a 504, `lastTimestamp: "yesterday"` and an int32 overflow were stored.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import { csrBody, eventBody, makeCsrPem, nodeBody } from '../../helpers/apiserver-fixtures.js';
import { rawRequest, type RawResponse } from '../../helpers/raw-request.js';

let api: StartedApiServer;
type Obj = Record<string, unknown>;
const csrs = '/apis/certificates.platform.io/v1/certificatesigningrequests';
const events = '/api/v1/namespaces/default/events';
const meta = (o: Obj | undefined): Obj => (o?.['metadata'] ?? {}) as Obj;
const raw = (
  method: string,
  path: string,
  body?: Obj | string,
  contentType = 'application/json',
): Promise<RawResponse> =>
  rawRequest(
    api.adminAgent,
    api.url,
    method,
    path,
    body === undefined
      ? {}
      : { body: typeof body === 'string' ? body : JSON.stringify(body), contentType },
  );

async function names(path: string): Promise<string[]> {
  const r = await api.request('GET', path);
  assert.equal(r.status, 200, r.text);
  return ((r.json?.['items'] ?? []) as Obj[]).map((i) => String(meta(i)['name'])).sort();
}

function assertStatus(r: RawResponse, code: number, reason: string, message: string): void {
  assert.equal(r.status, code, r.text);
  assert.equal(r.json?.['kind'], 'Status', r.text);
  assert.equal(r.json?.['reason'], reason, r.text);
  assert.equal(r.json?.['message'], message);
}

/**
 * The reference's answer to a patch whose result does not decode: 422 Invalid,
 * ` "" is invalid: patch: Invalid value: "<the patched object>": <the decoder's error>`.
 */
function assertPatchInvalid(r: RawResponse, decodeError: string): void {
  assert.equal(r.status, 422, r.text);
  assert.equal(r.json?.['reason'], 'Invalid', r.text);
  const message = String(r.json?.['message']);
  assert.ok(message.startsWith(' "" is invalid: patch: Invalid value: "{'), message);
  assert.ok(message.endsWith(`}": ${decodeError}`), message);
}

before(async () => {
  api = await startApiServer({});
  const { csrPem } = await makeCsrPem({ cn: 'system:node:n1', orgs: ['system:nodes'] });
  for (const n of ['csr-a', 'csr-b']) {
    const r = await api.request('POST', csrs, {
      body: csrBody(n, csrPem, 'platform.io/plat-apiserver-client-platlet', [
        'digital signature',
        'client auth',
      ]),
    });
    assert.equal(r.status, 201, r.text);
  }
  for (const n of ['ev-a', 'ev-b'])
    assert.equal(
      (await api.request('POST', events, { body: eventBody(n, 'default') })).status,
      201,
    );
});
after(async () => {
  await api?.stop();
});

test('`.` and `..` as a name, raw or percent-encoded, are 400 "Name parameter invalid" (NamespaceKeyFunc / NoNamespaceKeyFunc)', async () => {
  for (const seg of ['%2e', '%2E', '.']) {
    assertStatus(
      await raw('DELETE', `${csrs}/${seg}`),
      400,
      'BadRequest',
      'Name parameter invalid: ".": may not be \'.\'',
    );
  }
  for (const seg of ['..', '%2e%2e', '.%2E', '%2E.']) {
    assertStatus(
      await raw('DELETE', `${csrs}/${seg}`),
      400,
      'BadRequest',
      'Name parameter invalid: "..": may not be \'..\'',
    );
    assertStatus(
      await raw('GET', `${events}/${seg}`),
      400,
      'BadRequest',
      'Name parameter invalid: "..": may not be \'..\'',
    );
    assertStatus(
      await raw('DELETE', `${events}/${seg}`),
      400,
      'BadRequest',
      'Name parameter invalid: "..": may not be \'..\'',
    );
    assertStatus(
      await raw('PUT', `${events}/${seg}`, eventBody('..', 'default')),
      400,
      'BadRequest',
      'Name parameter invalid: "..": may not be \'..\'',
    );
    assertStatus(
      await raw('PATCH', `${events}/${seg}`, '{}', 'application/merge-patch+json'),
      400,
      'BadRequest',
      'Name parameter invalid: "..": may not be \'..\'',
    );
  }
  assertStatus(
    await raw('GET', `${events}/a%25b`),
    400,
    'BadRequest',
    'Name parameter invalid: "a%b": may not contain \'%\'',
  );
  assert.deepEqual(
    await names(csrs),
    ['csr-a', 'csr-b'],
    'DELETE .../certificatesigningrequests/%2e deleted nothing',
  );
  assert.deepEqual(await names(events), ['ev-a', 'ev-b']);
});

test('a dot segment never climbs: `namespaces/default/..` is no namespaces collection, `events/../..` no namespace', async () => {
  const up = await raw('DELETE', '/api/v1/namespaces/default/..');
  assert.equal(up.status, 404, up.text); // resource ".." does not exist; the reference answers 404 too
  const twice = await raw('GET', `${events}/../..`);
  assert.equal(twice.status, 404, twice.text);
  assert.notEqual(twice.json?.['kind'], 'Namespace');
  assert.ok((await names('/api/v1/namespaces')).includes('default'));
  assert.deepEqual(await names(events), ['ev-a', 'ev-b']);
});

test('bad percent-encoding in the path is a 400, not a 500 (the reference: Go rejects the request URI, `invalid URL escape "%zz"`)', async () => {
  // The reference's net/http answers `400 Bad Request` in plain text before any handler runs; we
  // keep the code and say what was wrong in a Status.
  assertStatus(
    await raw('GET', '/api/v1/namespaces/%zz'),
    400,
    'BadRequest',
    'invalid URL escape "%zz"',
  );
  assertStatus(await raw('DELETE', `${csrs}/%`), 400, 'BadRequest', 'invalid URL escape "%"');
  assertStatus(await raw('GET', `${events}/%e`), 400, 'BadRequest', 'invalid URL escape "%e"');
  assert.equal(
    (await raw('GET', '/api/v1/namespaces/%ff')).status,
    404,
    'invalid UTF-8 decodes; it is simply no such namespace',
  );
});

const rvMessage = (rv: string, why: string): string =>
  `invalid resource version: resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": ${why}`;

test('absurd resourceVersions on list, watch and deletecollection are 400 with the reference text (etcd3 ValidateListOptions)', async () => {
  // The reference answers this text as a 400 when the list is served from etcd; from the watch
  // cache it passes the same storage error up unconverted (a 500). A client error is a 400 here.
  const cases: [string, string][] = [
    ['12345678901234567890123', 'value out of range'],
    ['-1', 'invalid syntax'],
    ['abc', 'invalid syntax'],
  ];
  for (const [rv, why] of cases) {
    const q = encodeURIComponent(rv);
    assertStatus(
      await raw('GET', `${events}?resourceVersion=${q}`),
      400,
      'BadRequest',
      rvMessage(rv, why),
    );
    assertStatus(
      await raw('GET', `${events}?resourceVersion=${q}&limit=1`),
      400,
      'BadRequest',
      rvMessage(rv, why),
    );
    assertStatus(
      await raw('GET', `${events}?watch=true&resourceVersion=${q}`),
      400,
      'BadRequest',
      rvMessage(rv, why),
    );
    assertStatus(
      await raw('GET', `/api/v1/watch/namespaces/default/events?resourceVersion=${q}`),
      400,
      'BadRequest',
      rvMessage(rv, why),
    );
    assertStatus(
      await raw('DELETE', `${events}?resourceVersion=${q}`),
      400,
      'BadRequest',
      rvMessage(rv, why),
    );
  }
  assert.deepEqual(await names(events), ['ev-a', 'ev-b']);
  // GET of one object takes only `pretty` (parameter set R of the spec): a resourceVersion there is
  // ignored.
  assert.equal((await raw('GET', `${events}/ev-a?resourceVersion=abc`)).status, 200);
});

test('resourceVersion in an update body must be a uint64 (400); in delete preconditions it is compared as text (409, as the reference)', async () => {
  const cur = (await api.request('GET', `${events}/ev-a`)).json ?? {};
  const bad = { ...cur, metadata: { ...meta(cur), resourceVersion: 'abc' } };
  // The reference's Store.Update returns strconv's error unconverted (a 500); here it is a 400
  // naming the field.
  assertStatus(
    await raw('PUT', `${events}/ev-a`, bad),
    400,
    'BadRequest',
    'invalid resource version: metadata.resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
  );
  const huge = { ...cur, metadata: { ...meta(cur), resourceVersion: '99999999999999999999999' } };
  assert.equal((await raw('PUT', `${events}/ev-a`, huge)).status, 400);
  const rv = String(meta(cur)['resourceVersion']);
  const pre = await raw('DELETE', `${events}/ev-a`, {
    kind: 'DeleteOptions',
    apiVersion: 'v1',
    preconditions: { resourceVersion: 'abc' },
  });
  assertStatus(
    pre,
    409,
    'Conflict',
    `Operation cannot be fulfilled on events "ev-a": Precondition failed: ResourceVersion in precondition: abc, ResourceVersion in object meta: ${rv}`,
  );
  assert.deepEqual(await names(events), ['ev-a', 'ev-b']);
});

const yesterdayTime =
  'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"';
const yesterday = `Event in version "v1" cannot be handled as a Event: ${yesterdayTime}`;

test('an unparseable Time is refused on create, update, every patch type and apply; the namespace stays listable', async () => {
  assertStatus(
    await raw('POST', events, eventBody('bad-time', 'default', { lastTimestamp: 'yesterday' })),
    400,
    'BadRequest',
    yesterday,
  );
  assertStatus(
    await raw(
      'POST',
      events,
      'metadata: {name: bad-yaml}\ninvolvedObject: {kind: Pod, name: p, namespace: default}\nlastTimestamp: yesterday\n',
      'application/yaml',
    ),
    400,
    'BadRequest',
    yesterday,
  );
  const cur = (await api.request('GET', `${events}/ev-b`)).json ?? {};
  assertStatus(
    await raw('PUT', `${events}/ev-b`, { ...cur, lastTimestamp: 'yesterday' }),
    400,
    'BadRequest',
    yesterday,
  );
  // A patch whose result does not decode: the reference's 422 naming the patched object.
  assertPatchInvalid(
    await raw(
      'PATCH',
      `${events}/ev-b`,
      { lastTimestamp: 'yesterday' },
      'application/merge-patch+json',
    ),
    yesterdayTime,
  );
  // A strategic merge patch names the patch as Go prints it (the reference 1.32.13:
  // ` "" is invalid: patch: Invalid value: "map[lastTimestamp:yesterday]": parsing time ...`).
  const strategic = await raw(
    'PATCH',
    `${events}/ev-b`,
    { lastTimestamp: 'yesterday' },
    'application/strategic-merge-patch+json',
  );
  assert.equal(strategic.status, 422, strategic.text);
  assert.equal(
    strategic.json?.['message'],
    ` "" is invalid: patch: Invalid value: "map[lastTimestamp:yesterday]": ${yesterdayTime}`,
  );
  assertPatchInvalid(
    await raw(
      'PATCH',
      `${events}/ev-b`,
      JSON.stringify([{ op: 'add', path: '/lastTimestamp', value: 'yesterday' }]),
      'application/json-patch+json',
    ),
    yesterdayTime,
  );
  const apply = await raw(
    'PATCH',
    `${events}/ev-b?fieldManager=t`,
    'apiVersion: v1\nkind: Event\nmetadata: {name: ev-b, namespace: default}\nlastTimestamp: yesterday\n',
    'application/apply-patch+yaml',
  );
  assertStatus(apply, 400, 'BadRequest', yesterday);
  const list = await api.request('GET', events);
  assert.equal(list.status, 200);
  for (const item of (list.json?.['items'] ?? []) as Obj[])
    assert.notEqual(item['lastTimestamp'], 'yesterday');
});

test('Time fields are stored in UTC at whole seconds and MicroTime at microseconds, on create, update, patch and status', async () => {
  const created = await raw(
    'POST',
    events,
    eventBody('times', 'default', {
      firstTimestamp: '2026-01-01T05:30:00+05:30',
      lastTimestamp: '2026-01-01T00:00:00.987Z',
      eventTime: '2026-01-01T02:00:00.123456+02:00',
      reportingComponent: 'nodeagent',
      reportingInstance: 'n1',
      action: 'Started',
    }),
  );
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json?.['firstTimestamp'], '2026-01-01T00:00:00Z');
  assert.equal(created.json?.['lastTimestamp'], '2026-01-01T00:00:00Z');
  assert.equal(created.json?.['eventTime'], '2026-01-01T00:00:00.123456Z');
  const patched = await raw(
    'PATCH',
    `${events}/times`,
    { lastTimestamp: '2026-01-02T00:00:00-01:00' },
    'application/merge-patch+json',
  );
  assert.equal(patched.json?.['lastTimestamp'], '2026-01-02T01:00:00Z', patched.text);
  // MicroTime takes exactly six fraction digits (time.Parse with RFC3339Micro).
  assertPatchInvalid(
    await raw(
      'PATCH',
      `${events}/times`,
      { eventTime: '2026-01-01T00:00:00Z' },
      'application/merge-patch+json',
    ),
    'parsing time "2026-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
  );
  assert.equal((await api.request('POST', '/api/v1/nodes', { body: nodeBody('n1') })).status, 201);
  const status = await raw(
    'PATCH',
    '/api/v1/nodes/n1/status',
    {
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            lastHeartbeatTime: '2026-01-01T01:00:00+01:00',
            lastTransitionTime: '2026-01-01T00:00:00.5Z',
          },
        ],
      },
    },
    'application/merge-patch+json',
  );
  assert.equal(status.status, 200, status.text);
  const cond = ((status.json?.['status'] as Obj)['conditions'] as Obj[])[0] ?? {};
  assert.equal(cond['lastHeartbeatTime'], '2026-01-01T00:00:00Z');
  assert.equal(cond['lastTransitionTime'], '2026-01-01T00:00:00Z');
});

test('int32 fields are range checked: CSR expirationSeconds beyond int32 is refused as the reference refuses it', async () => {
  const { csrPem } = await makeCsrPem({ cn: 'system:node:n2', orgs: ['system:nodes'] });
  const msg =
    'CertificateSigningRequest in version "v1" cannot be handled as a CertificateSigningRequest: json: cannot unmarshal number 2147483648 into Go struct field CertificateSigningRequestSpec.spec.expirationSeconds of type int32';
  assertStatus(
    await raw(
      'POST',
      csrs,
      csrBody(
        'too-long',
        csrPem,
        'platform.io/plat-apiserver-client-platlet',
        ['digital signature', 'client auth'],
        { expirationSeconds: 2147483648 },
      ),
    ),
    400,
    'BadRequest',
    msg,
  );
  assertPatchInvalid(
    await raw(
      'PATCH',
      `${csrs}/csr-a`,
      { spec: { expirationSeconds: 2147483648 } },
      'application/merge-patch+json',
    ),
    'json: cannot unmarshal number 2147483648 into Go struct field CertificateSigningRequestSpec.spec.expirationSeconds of type int32',
  );
  assert.equal((await raw('GET', `${csrs}/too-long`)).status, 404);
  const count =
    'Event in version "v1" cannot be handled as a Event: json: cannot unmarshal number 2147483648 into Go struct field Event.count of type int32';
  assertStatus(
    await raw('POST', events, eventBody('big-count', 'default', { count: 2147483648 })),
    400,
    'BadRequest',
    count,
  );
});

test('creationTimestamp on update is ignored as BeforeUpdate does: a re-serialised form is no change, another value is reset', async () => {
  const cur = (await api.request('GET', `${events}/ev-b`)).json ?? {};
  const m = meta(cur);
  const ts = String(m['creationTimestamp']);
  const same = await raw('PUT', `${events}/ev-b`, {
    ...cur,
    metadata: { ...m, creationTimestamp: ts.replace('Z', '+00:00') },
  });
  assert.equal(same.status, 200, same.text);
  assert.equal(
    meta(same.json)['resourceVersion'],
    m['resourceVersion'],
    'no write: nothing changed',
  );
  const millis = await raw('PUT', `${events}/ev-b`, {
    ...cur,
    metadata: { ...m, creationTimestamp: ts.replace('Z', '.000Z') },
  });
  assert.equal(meta(millis.json)['resourceVersion'], m['resourceVersion']);
  const other = await raw('PUT', `${events}/ev-b`, {
    ...cur,
    message: 'changed',
    metadata: { ...m, creationTimestamp: '2000-01-01T00:00:00Z' },
  });
  assert.equal(other.status, 200, other.text);
  assert.equal(meta(other.json)['creationTimestamp'], ts, 'silently reset to the stored value');
  assert.equal(other.json?.['message'], 'changed');
});

test('request headers over 1 MiB are 431, as the reference (Go DefaultMaxHeaderBytes); 512 KiB pass', async () => {
  const r = await api.request('GET', '/api/v1/namespaces', {
    headers: { 'x-big': 'a'.repeat(512 * 1024) },
  });
  assert.equal(r.status, 200, r.text);
  // Five tries: the answer is read before the connection closes, every time (no reset under it).
  for (let i = 0; i < 5; i++) {
    const big = await api.request('GET', '/api/v1/namespaces', {
      headers: { 'x-big': 'a'.repeat(1100 * 1024) },
    });
    assert.equal(big.status, 431);
    assert.equal(big.text, '431 Request Header Fields Too Large', 'the body, as the reference');
  }
});
