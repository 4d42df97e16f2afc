// Protobuf against the real plat-apiserver (platform profile, so groups are *.platform.io while
// the messages are the reference's): create/get/list/delete of a pod in protobuf both ways,
// Status errors in protobuf, every served resource listed as protobuf, a review in protobuf,
// DeleteOptions bodies, a watch as length-prefixed protobuf frames, the reference's 406/415
// answers, and the hostile corpus (test/fixtures/hostile-protobuf) plus fast-check mutations
// answered 400 without a 5xx.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import fc from 'fast-check';
import { startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';
import {
  decodeEnvelope,
  decodeWatchEvent,
  encodeEnvelope,
} from '../../../src/common/protobuf/codec.js';
import { fuzzParams } from '../../helpers/fuzz-runs.js';

const PB = 'application/vnd.kubernetes.protobuf';
const NS = 'pb';
let api: StartedApiServer;

interface Answer {
  status: number;
  type: string;
  bytes: Buffer;
}

async function call(
  method: string,
  path: string,
  o: { body?: Buffer | string; contentType?: string; accept?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { accept: o.accept ?? `${PB}, application/json` };
  if (o.contentType !== undefined) headers['content-type'] = o.contentType;
  const res = await request(`${api.url}${path}`, {
    method: method as 'GET',
    headers,
    dispatcher: api.adminAgent,
    ...(o.body === undefined ? {} : { body: o.body }),
  });
  return {
    status: res.statusCode,
    type: String(res.headers['content-type'] ?? ''),
    bytes: Buffer.from(await res.body.arrayBuffer()),
  };
}

function pb(a: Answer): Record<string, unknown> {
  assert.equal(
    a.type,
    PB,
    `expected a protobuf answer, got ${a.type}: ${a.bytes.toString('utf8').slice(0, 200)}`,
  );
  return decodeEnvelope(a.bytes).object;
}

const meta = (o: Record<string, unknown>): Record<string, unknown> =>
  o['metadata'] as Record<string, unknown>;
const pod = (name: string): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS, labels: { app: 'pb' } },
  spec: { containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }] }] },
});

before(async () => {
  // The pods here have no node: without the scheduler nothing writes their status between the
  // reads this test compares byte for byte.
  api = await startApiServer({ args: ['--controllers=*,-scheduler'] });
  assert.equal(
    (await api.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status,
    201,
  );
});
after(async () => {
  await api?.stop();
});

test('a pod created, read, listed and deleted in protobuf; errors are protobuf Status objects', async () => {
  const created = await call('POST', `/api/v1/namespaces/${NS}/pods`, {
    body: encodeEnvelope(pod('web'), 'v1', 'Pod'),
    contentType: PB,
  });
  assert.equal(created.status, 201, created.bytes.toString('utf8').slice(0, 300));
  const c = pb(created);
  assert.equal(c['kind'], 'Pod');
  assert.equal(meta(c)['name'], 'web');
  assert.match(String(meta(c)['uid']), /^[0-9a-f-]{36}$/);
  assert.match(String(meta(c)['creationTimestamp']), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  const container = (c['spec'] as { containers: Record<string, unknown>[] }).containers[0];
  assert.equal(container?.['image'], 'busybox');
  // The protocol is the reference's default.
  assert.deepEqual(container?.['ports'], [{ containerPort: 80, protocol: 'TCP' }]);
  const got = pb(await call('GET', `/api/v1/namespaces/${NS}/pods/web`));
  assert.deepEqual(got, c);
  const json = await api.request('GET', `/api/v1/namespaces/${NS}/pods/web`);
  assert.deepEqual(got, json.json, 'the protobuf answer carries what the JSON answer carries');
  const list = pb(await call('GET', `/api/v1/namespaces/${NS}/pods`));
  assert.equal(list['kind'], 'PodList');
  assert.deepEqual(
    (list['items'] as Record<string, unknown>[]).map((p) => meta(p)['name']),
    ['web'],
  );
  const missing = await call('GET', `/api/v1/namespaces/${NS}/pods/missing`);
  assert.equal(missing.status, 404);
  assert.deepEqual(pb(missing), {
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    message: 'pods "missing" not found',
    reason: 'NotFound',
    details: { name: 'missing', kind: 'pods' },
    code: 404,
  });
  const del = await call('DELETE', `/api/v1/namespaces/${NS}/pods/web`, {
    body: encodeEnvelope(
      {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        gracePeriodSeconds: 0,
        preconditions: { uid: String(meta(c)['uid']) },
      },
      'v1',
      'DeleteOptions',
    ),
    contentType: PB,
  });
  assert.equal(del.status, 200);
  assert.equal((await call('GET', `/api/v1/namespaces/${NS}/pods/web`)).status, 404);
  const wrongUid = await call('DELETE', `/api/v1/namespaces/${NS}/pods/none`, {
    body: encodeEnvelope(
      { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Sideways' },
      'v1',
      'DeleteOptions',
    ),
    contentType: PB,
  });
  assert.equal(wrongUid.status, 422);
  assert.equal(pb(wrongUid)['reason'], 'Invalid');
});

test('every served resource lists as protobuf; a review answers in protobuf', async () => {
  const d = api.platformDomain;
  const lists: [string, string][] = [
    ['/api/v1/namespaces', 'NamespaceList'],
    ['/api/v1/nodes', 'NodeList'],
    ['/api/v1/pods', 'PodList'],
    ['/api/v1/events', 'EventList'],
    ['/api/v1/configmaps', 'ConfigMapList'],
    ['/api/v1/secrets', 'SecretList'],
    [`/apis/coordination.${d}/v1/leases`, 'LeaseList'],
    [`/apis/certificates.${d}/v1/certificatesigningrequests`, 'CertificateSigningRequestList'],
    [`/apis/rbac.authorization.${d}/v1/clusterroles`, 'ClusterRoleList'],
    [`/apis/rbac.authorization.${d}/v1/clusterrolebindings`, 'ClusterRoleBindingList'],
    [`/apis/rbac.authorization.${d}/v1/roles`, 'RoleList'],
    [`/apis/rbac.authorization.${d}/v1/rolebindings`, 'RoleBindingList'],
  ];
  lists.push(['/api', 'APIVersions'], ['/apis', 'APIGroupList'], ['/api/v1', 'APIResourceList']);
  for (const [path, kind] of lists) {
    const a = await call('GET', path);
    assert.equal(a.status, 200, path);
    const o = pb(a);
    assert.equal(o['kind'], kind, path);
    if (kind.endsWith('List') && !kind.startsWith('API'))
      assert.match(String(meta(o)['resourceVersion']), /^\d+$/, path);
    assert.equal(api.logs().includes('answering a protobuf request with JSON'), false, api.logs());
  }
  const roles = pb(await call('GET', `/apis/rbac.authorization.${d}/v1/clusterroles`));
  assert.ok(
    (roles['items'] as unknown[]).length > 10,
    'the bootstrap policy decodes from protobuf',
  );
  assert.equal(roles['apiVersion'], `rbac.authorization.${d}/v1`);
  const review = await call('POST', `/apis/authentication.${d}/v1/selfsubjectreviews`, {
    body: encodeEnvelope(
      { apiVersion: `authentication.${d}/v1`, kind: 'SelfSubjectReview', metadata: {} },
      `authentication.${d}/v1`,
      'SelfSubjectReview',
    ),
    contentType: PB,
  });
  assert.equal(review.status, 201);
  const r = pb(review);
  assert.equal(r['kind'], 'SelfSubjectReview');
  assert.ok(
    (r['status'] as { userInfo: { groups: string[] } }).userInfo.groups.includes('system:masters'),
  );
});

test('a protobuf list (item messages from the served cache) is byte for byte the envelope of the JSON list, pages and selectors too', async () => {
  for (const name of ['l1', 'l2', 'l3'])
    assert.equal(
      (
        await call('POST', `/api/v1/namespaces/${NS}/pods`, {
          body: encodeEnvelope(pod(name), 'v1', 'Pod'),
          contentType: PB,
        })
      ).status,
      201,
    );
  for (const q of ['', 'limit=2', 'labelSelector=app%3Dpb']) {
    for (let round = 0; round < 2; round++) {
      const json = await call('GET', `/api/v1/namespaces/${NS}/pods?${q}`, {
        accept: 'application/json',
      });
      const list = JSON.parse(json.bytes.toString('utf8')) as Record<string, unknown>;
      const proto = await call('GET', `/api/v1/namespaces/${NS}/pods?${q}`);
      assert.equal(proto.type, PB);
      assert.ok(proto.bytes.equals(encodeEnvelope(list, 'v1', 'PodList')), `${q}, round ${round}`);
    }
  }
  for (const name of ['l1', 'l2', 'l3'])
    assert.equal(
      (await api.request('DELETE', `/api/v1/namespaces/${NS}/pods/${name}?gracePeriodSeconds=0`))
        .status,
      200,
    );
});

test("unknown media types: the reference's 406 and 415 answers", async () => {
  const na = await call('GET', `/api/v1/namespaces/${NS}/pods`, { accept: 'text/html' });
  assert.equal(na.status, 406);
  assert.deepEqual(JSON.parse(na.bytes.toString('utf8')), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message:
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    reason: 'NotAcceptable',
    code: 406,
  });
  const ums = await call('POST', `/api/v1/namespaces/${NS}/pods`, {
    body: 'x',
    contentType: 'text/plain',
    accept: 'application/json',
  });
  assert.equal(ums.status, 415);
  const s = JSON.parse(ums.bytes.toString('utf8')) as Record<string, unknown>;
  assert.equal(s['reason'], 'UnsupportedMediaType');
  assert.equal(
    s['message'],
    'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
  // OpenAPI and discovery negotiate their own media types (kubectl asks for OpenAPI in its protobuf).
  assert.equal(
    (
      await call('GET', '/openapi/v3', {
        accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf',
      })
    ).status,
    200,
  );
  const preferJson = await call('GET', `/api/v1/namespaces/${NS}/pods`, {
    accept: `${PB};q=0.5, application/json`,
  });
  assert.match(preferJson.type, /^application\/json/);
});

/** Reads length-prefixed frames from a protobuf watch response. */
async function* frames(
  body: AsyncIterable<Buffer>,
): AsyncGenerator<{ type: string; object: Record<string, unknown> }> {
  let buf = Buffer.alloc(0);
  for await (const chunk of body) {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
      const len = buf.readUInt32BE(0);
      yield decodeWatchEvent(buf.subarray(4, 4 + len));
      buf = buf.subarray(4 + len);
    }
  }
}

test('a watch in protobuf: length-prefixed WatchEvent frames, ADDED/MODIFIED/DELETED', async () => {
  const rv = String(
    meta(pb(await call('GET', `/api/v1/namespaces/${NS}/events`)))['resourceVersion'],
  );
  const ac = new AbortController();
  const res = await request(
    `${api.url}/api/v1/namespaces/${NS}/events?watch=true&resourceVersion=${rv}`,
    {
      headers: { accept: `${PB}, application/json` },
      dispatcher: api.adminAgent,
      signal: ac.signal,
    },
  );
  try {
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/vnd.kubernetes.protobuf;stream=watch');
    const ev = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e1', namespace: NS },
      involvedObject: { kind: 'Pod', name: 'web', namespace: NS },
      reason: 'Started',
      message: 'm',
      type: 'Normal',
      count: 1,
      eventTime: '2026-01-01T00:00:00.250000Z',
      reportingComponent: 'kubelet',
      reportingInstance: 'n1',
      action: 'Started',
    };
    assert.equal(
      (
        await call('POST', `/api/v1/namespaces/${NS}/events`, {
          body: encodeEnvelope(ev, 'v1', 'Event'),
          contentType: PB,
        })
      ).status,
      201,
    );
    assert.equal(
      (
        await api.request('PATCH', `/api/v1/namespaces/${NS}/events/e1`, {
          body: { count: 2 },
          contentType: 'application/merge-patch+json',
        })
      ).status,
      200,
    );
    assert.equal((await api.request('DELETE', `/api/v1/namespaces/${NS}/events/e1`)).status, 200);
    const seen: { type: string; object: Record<string, unknown> }[] = [];
    for await (const e of frames(res.body as AsyncIterable<Buffer>)) {
      seen.push(e);
      if (seen.length === 3) break;
    }
    assert.deepEqual(
      seen.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'DELETED'],
    );
    assert.equal(seen[0]?.object['kind'], 'Event');
    assert.equal(seen[0]?.object['eventTime'], '2026-01-01T00:00:00.250000Z');
    assert.equal(seen[1]?.object['count'], 2);
  } finally {
    ac.abort();
  }
});

test('hostile protobuf bodies are 400, never 5xx (corpus and fast-check mutations)', async () => {
  const dir = join(process.cwd(), 'test', 'fixtures', 'hostile-protobuf');
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.bin'))) {
    const a = await call('POST', `/api/v1/namespaces/${NS}/pods`, {
      body: readFileSync(join(dir, f)),
      contentType: PB,
      accept: 'application/json',
    });
    assert.equal(a.status, 400, `${f}: ${a.bytes.toString('utf8').slice(0, 300)}`);
    assert.match(
      String((JSON.parse(a.bytes.toString('utf8')) as Record<string, unknown>)['message']),
      /^the object provided is unrecognized \(must be of type Pod\): /,
      f,
    );
  }
  const valid = encodeEnvelope(pod('fuzzed'), 'v1', 'Pod');
  await fc.assert(
    fc.asyncProperty(
      fc.nat({ max: valid.length - 1 }),
      fc.uint8Array({ minLength: 1, maxLength: 6 }),
      fc.boolean(),
      async (at, bytes, truncate) => {
        const body = truncate
          ? valid.subarray(0, at)
          : Buffer.concat([
              valid.subarray(0, at),
              Buffer.from(bytes),
              valid.subarray(at + bytes.length),
            ]);
        const a = await call('POST', `/api/v1/namespaces/${NS}/pods?dryRun=All`, {
          body,
          contentType: PB,
        });
        assert.ok(a.status < 500, `${a.status} for ${body.toString('hex')}`);
      },
    ),
    fuzzParams(60),
  );
  assert.equal((await api.request('GET', '/healthz', { anonymous: true })).status, 200);
});
