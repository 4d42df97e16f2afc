// /openapi/v2 and /openapi/v3 of the real plat-apiserver (--platform-profile=kubernetes): the
// reference's caching answers (ETag = upper-case hex SHA-512 of the body, 304 on If-None-Match,
// `?hash=` immutable or 301 to the current hash, /openapi/v2 also as gnostic's protobuf, 406 for a
// type not offered), and every object the
// server returns (create, get, list, watch, delete, errors, reviews) valid against the schema
// its apiVersion and kind name in both documents, strictly (no field the schema does not list).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  startApiServer,
  type ApiResponse,
  type StartedApiServer,
} from '../../helpers/apiserver.js';
import {
  csrBody,
  eventBody,
  makeCsrPem,
  nodeBody,
  podBody,
} from '../../helpers/apiserver-fixtures.js';
import { schemaSet, type SchemaSet } from '../../helpers/openapi-validate.js';
import { request as undiciRequest } from 'undici';

type Json = Record<string, unknown>;
let api: StartedApiServer;
let v2: SchemaSet;
const v3 = new Map<string, SchemaSet>();

before(async () => {
  api = await startApiServer({ args: ['--platform-profile=kubernetes'] });
});
after(async () => {
  await api?.stop();
});

const sha512 = (text: string): string =>
  createHash('sha512').update(text).digest('hex').toUpperCase();

async function loadSchemas(): Promise<void> {
  if (v3.size > 0) return;
  const index = await api.request('GET', '/openapi/v3');
  for (const [key, { serverRelativeURL }] of Object.entries(
    index.json?.['paths'] as Record<string, { serverRelativeURL: string }>,
  )) {
    const doc = await api.request('GET', serverRelativeURL);
    assert.equal(doc.status, 200, `${serverRelativeURL}: ${doc.text}`);
    v3.set(key, schemaSet(doc.json as Json));
  }
  v2 = schemaSet(
    (await api.request('GET', '/openapi/v2', { headers: { accept: 'application/json' } }))
      .json as Json,
  );
}

function gvKey(apiVersion: string): string {
  return apiVersion.includes('/') ? `apis/${apiVersion}` : `api/${apiVersion}`;
}

/** Validates a returned object against its kind's schema in the v3 document of its group-version and in v2. */
function conforms(obj: Json | undefined, what: string): void {
  assert.ok(obj !== undefined, `${what}: no JSON body`);
  const apiVersion = String(obj['apiVersion']);
  const kind = String(obj['kind']);
  const set = v3.get(gvKey(apiVersion));
  assert.ok(set !== undefined, `${what}: no v3 document for ${apiVersion}`);
  for (const [name, s] of [
    ['v3', set],
    ['v2', v2],
  ] as const) {
    const def = s.definitionFor(apiVersion, kind);
    assert.ok(def !== undefined, `${what}: no ${name} definition tagged ${apiVersion} ${kind}`);
    assert.deepEqual(s.validate(def, obj), [], `${what} (${name} ${def})`);
  }
}

function ok(r: ApiResponse, code: number, what: string): Json {
  assert.equal(r.status, code, `${what}: ${r.text}`);
  return r.json as Json;
}

test('/openapi/v3 lists each group-version with ?hash= the SHA-512 of its document; the document is immutable under that hash', async () => {
  const index = await api.request('GET', '/openapi/v3');
  assert.equal(index.status, 200);
  assert.equal(index.headers['content-type'], 'application/json');
  const paths = index.json?.['paths'] as Record<string, { serverRelativeURL: string }>;
  // The reference's index keys for these groups (its index has more groups, and logs, openid and .well-known, which we do not serve).
  assert.deepEqual(Object.keys(paths), [
    'api',
    'api/v1',
    'apis',
    'apis/authentication.k8s.io',
    'apis/authentication.k8s.io/v1',
    'apis/authorization.k8s.io',
    'apis/authorization.k8s.io/v1',
    'apis/certificates.k8s.io',
    'apis/certificates.k8s.io/v1',
    'apis/coordination.k8s.io',
    'apis/coordination.k8s.io/v1',
    'apis/events.k8s.io',
    'apis/events.k8s.io/v1',
    'apis/rbac.authorization.k8s.io',
    'apis/rbac.authorization.k8s.io/v1',
    'version',
  ]);
  const url = paths['apis/certificates.k8s.io/v1']?.serverRelativeURL ?? '';
  const doc = await api.request('GET', url);
  assert.equal(doc.status, 200);
  const hash = sha512(doc.text);
  assert.equal(url, `/openapi/v3/apis/certificates.k8s.io/v1?hash=${hash}`);
  assert.equal(doc.headers['etag'], `"${hash}"`);
  assert.equal(doc.headers['cache-control'], 'public, immutable');
  assert.equal(doc.headers['vary'], 'Accept');
  const expires = Date.parse(String(doc.headers['expires']));
  assert.ok(
    expires - Date.now() > 364 * 86_400_000,
    `Expires a year ahead: ${String(doc.headers['expires'])}`,
  );
  const schemas = (doc.json?.['components'] as Json)['schemas'] as Json;
  assert.ok('io.k8s.api.certificates.v1.CertificateSigningRequest' in schemas);
  // Another hash: 301 to the current one (kube-openapi handler3).
  const stale = await api.request('GET', '/openapi/v3/apis/certificates.k8s.io/v1?hash=0123');
  assert.equal(stale.status, 301);
  assert.equal(stale.headers['location'], url);
  // No hash: the document with its ETag, no immutable caching.
  const plain = await api.request('GET', '/openapi/v3/apis/certificates.k8s.io/v1');
  assert.equal(plain.headers['etag'], `"${hash}"`);
  assert.equal(plain.headers['cache-control'], 'no-cache, private');
  const again = await api.request('GET', '/openapi/v3/apis/certificates.k8s.io/v1', {
    headers: { 'if-none-match': `"${hash}"` },
  });
  assert.equal(again.status, 304);
  assert.equal(again.text, '');
  assert.equal((await api.request('GET', '/openapi/v3/apis/nope.k8s.io/v1')).status, 404);
});

test('/openapi/v2: JSON with ETag, 304 on If-None-Match; protobuf the same way; 406 for a type not offered', async () => {
  const r = await api.request('GET', '/openapi/v2', { headers: { accept: 'application/json' } });
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'application/json');
  assert.equal(r.headers['etag'], `"${sha512(r.text)}"`);
  assert.equal(r.json?.['swagger'], '2.0');
  assert.ok('io.k8s.api.core.v1.Pod' in (r.json?.['definitions'] as Json));
  const cached = await api.request('GET', '/openapi/v2', {
    headers: { 'if-none-match': String(r.headers['etag']) },
  });
  assert.equal(cached.status, 304);
  const v3pb = await api.request('GET', '/openapi/v2', {
    headers: { accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' },
  });
  assert.equal(v3pb.status, 406);
  assert.equal(v3pb.text, '');
  const fallback = await api.request('GET', '/openapi/v2', {
    headers: {
      accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf, application/json',
    },
  });
  assert.equal(fallback.status, 200);
});

/** A GET of /openapi/v2 as the admin, the body as bytes (the helper's request reads text). */
async function getBytes(
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const res = await undiciRequest(`${api.url}/openapi/v2`, {
    method: 'GET',
    headers,
    dispatcher: api.adminAgent,
  });
  return {
    status: res.statusCode,
    headers: res.headers,
    body: Buffer.from(await res.body.arrayBuffer()),
  };
}

test('/openapi/v2 as protobuf: gnostic bytes (swagger "2.0" first), their own ETag, 304 on If-None-Match', async () => {
  const pbType = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
  const pb = await getBytes({ accept: pbType });
  assert.equal(pb.status, 200);
  assert.equal(
    pb.headers['content-type'],
    'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
  );
  assert.deepEqual([...pb.body.subarray(0, 6)], [0x0a, 0x03, 0x32, 0x2e, 0x30, 0x12]);
  assert.equal(
    pb.headers['etag'],
    `"${createHash('sha512').update(pb.body).digest('hex').toUpperCase()}"`,
  );
  const again = await getBytes({ accept: pbType, 'if-none-match': String(pb.headers['etag']) });
  assert.equal(again.status, 304);
  assert.equal(again.body.length, 0);
  const old = await getBytes({
    accept: 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
  });
  assert.equal(
    old.headers['content-type'],
    'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
  );
  assert.deepEqual(old.body, pb.body);
});

test('the OpenAPI documents need authentication (as every non-public path)', async () => {
  const r = await api.request('GET', '/openapi/v2', { anonymous: true });
  assert.notEqual(r.status, 200);
});

async function crud(collection: string, body: Json, name: string, what: string): Promise<void> {
  conforms(
    ok(await api.request('POST', collection, { body }), 201, `create ${what}`),
    `create ${what}`,
  );
  conforms(
    ok(await api.request('GET', `${collection}/${name}`), 200, `get ${what}`),
    `get ${what}`,
  );
  conforms(ok(await api.request('GET', collection), 200, `list ${what}`), `list ${what}`);
}

test('every object the server returns conforms to its schema (v3 and v2, strict)', async () => {
  await loadSchemas();
  const ns = 'oa';
  await crud(
    '/api/v1/namespaces',
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { a: 'b' } } },
    ns,
    'namespace',
  );
  await crud(
    `/api/v1/namespaces/${ns}/configmaps`,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm' },
      data: { k: 'v' },
      binaryData: { b: 'AAE=' },
    },
    'cm',
    'configmap',
  );
  await crud(
    `/api/v1/namespaces/${ns}/secrets`,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { k: 'v' },
      type: 'Opaque',
    },
    's',
    'secret',
  );
  await crud(
    `/api/v1/namespaces/${ns}/events`,
    eventBody('e1', ns, {
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:00:01Z',
    }),
    'e1',
    'event',
  );
  await crud(`/api/v1/namespaces/${ns}/pods`, podBody('p1', ns), 'p1', 'pod');
  // events.k8s.io/v1, in a namespace of its own: a core Event read through this group has
  // eventTime null (so does the reference's), which its schema marks required.
  ok(
    await api.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'oa-ev' } } }),
    201,
    'namespace oa-ev',
  );
  const ev1 = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'e2' },
    eventTime: '2026-01-01T00:00:00.000000Z',
    reportingController: 'kubelet',
    reportingInstance: 'n1',
    action: 'Started',
    reason: 'Started',
    regarding: { kind: 'Pod', namespace: 'oa-ev', name: 'p1' },
    note: 'n',
    type: 'Normal',
  };
  await crud('/apis/events.k8s.io/v1/namespaces/oa-ev/events', ev1, 'e2', 'events.k8s.io event');
  conforms(
    ok(await api.request('GET', `/api/v1/namespaces/${ns}/pods/p1/status`), 200, 'pod status'),
    'pod status',
  );
  conforms(ok(await api.request('GET', '/api/v1/pods'), 200, 'all pods'), 'all pods');
  await crud('/api/v1/nodes', nodeBody('n1'), 'n1', 'node');
  const lease = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'n1' },
    spec: {
      holderIdentity: 'n1',
      leaseDurationSeconds: 40,
      renewTime: '2026-01-01T00:00:00.000000Z',
    },
  };
  await crud(
    '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
    lease,
    'n1',
    'lease',
  );
  const { csrPem } = await makeCsrPem({ cn: 'u1' });
  await crud(
    '/apis/certificates.k8s.io/v1/certificatesigningrequests',
    csrBody('c1', csrPem, 'kubernetes.io/kube-apiserver-client', ['client auth'], {}, 'k8s.io'),
    'c1',
    'csr',
  );
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  const rules = [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }];
  await crud(
    `${rbac}/namespaces/${ns}/roles`,
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' }, rules },
    'r',
    'role',
  );
  await crud(
    `${rbac}/clusterroles`,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'oa-cr' },
      rules,
    },
    'oa-cr',
    'clusterrole',
  );
  const binding = (kind: string, roleKind: string, roleName: string): Json => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: { name: 'b' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: roleName },
  });
  await crud(
    `${rbac}/namespaces/${ns}/rolebindings`,
    binding('RoleBinding', 'Role', 'r'),
    'b',
    'rolebinding',
  );
  await crud(
    `${rbac}/clusterrolebindings`,
    binding('ClusterRoleBinding', 'ClusterRole', 'oa-cr'),
    'b',
    'clusterrolebinding',
  );
  // The bootstrap policy as served (aggregation rules, every subject kind).
  conforms(
    ok(await api.request('GET', `${rbac}/clusterroles`), 200, 'bootstrap clusterroles'),
    'bootstrap clusterroles',
  );
  // The check can fail: a field no schema lists, a wrong type, a bad time.
  const cm = v3.get('api/v1') as SchemaSet;
  const cmDef = cm.definitionFor('v1', 'ConfigMap') ?? '';
  assert.equal(cmDef, 'io.k8s.api.core.v1.ConfigMap');
  assert.notDeepEqual(
    cm.validate(cmDef, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, spec: {} }),
    [],
  );
  assert.notDeepEqual(
    cm.validate(cmDef, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', generation: 'one' },
    }),
    [],
  );
  assert.notDeepEqual(
    cm.validate(cmDef, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', creationTimestamp: 'yesterday' },
    }),
    [],
  );
  // Errors and deletes: Status, or the deleted object.
  conforms(
    ok(await api.request('GET', `/api/v1/namespaces/${ns}/pods/missing`), 404, 'not found'),
    'not found Status',
  );
  const del = await api.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/cm`);
  conforms(ok(del, 200, 'delete configmap'), 'delete configmap');
});

test('watch events and review answers conform to their schemas', async () => {
  await loadSchemas();
  const w = await api.watch('/api/v1/namespaces/default/configmaps?watch=true');
  try {
    ok(
      await api.request('POST', '/api/v1/namespaces/default/configmaps', {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w1' }, data: { a: 'b' } },
      }),
      201,
      'create',
    );
    const ev = await w.next();
    const watchEvent = v3.get('api/v1')?.definitionFor('v1', 'WatchEvent') ?? '';
    assert.deepEqual(v3.get('api/v1')?.validate(watchEvent, ev), []);
    conforms(ev.object, 'watched object');
  } finally {
    w.close();
  }
  const authz = '/apis/authorization.k8s.io/v1';
  const attrs = { resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } };
  conforms(
    ok(
      await api.request('POST', `${authz}/selfsubjectaccessreviews`, {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: attrs,
        },
      }),
      201,
      'ssar',
    ),
    'ssar',
  );
  conforms(
    ok(
      await api.request('POST', `${authz}/subjectaccessreviews`, {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { ...attrs, user: 'alice' },
        },
      }),
      201,
      'sar',
    ),
    'sar',
  );
  conforms(
    ok(
      await api.request('POST', `${authz}/namespaces/default/localsubjectaccessreviews`, {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'LocalSubjectAccessReview',
          spec: { ...attrs, user: 'alice' },
        },
      }),
      201,
      'lsar',
    ),
    'lsar',
  );
  conforms(
    ok(
      await api.request('POST', `${authz}/selfsubjectrulesreviews`, {
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectRulesReview',
          spec: { namespace: 'default' },
        },
      }),
      201,
      'ssrr',
    ),
    'ssrr',
  );
  const authn = '/apis/authentication.k8s.io/v1';
  conforms(
    ok(
      await api.request('POST', `${authn}/selfsubjectreviews`, {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      }),
      201,
      'ssr',
    ),
    'ssr',
  );
  conforms(
    ok(
      await api.request('POST', `${authn}/tokenreviews`, {
        body: {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token: 'not-a-token' },
        },
      }),
      201,
      'tokenreview',
    ),
    'tokenreview',
  );
});

test("the discovery answers and /version conform to the index's api, apis, apis/<group> and version documents", async () => {
  const index = await api.request('GET', '/openapi/v3');
  const paths = index.json?.['paths'] as Record<string, { serverRelativeURL: string }>;
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ['api', '/api', 'io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions'],
    ['apis', '/apis', 'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList'],
    [
      'apis/certificates.k8s.io',
      '/apis/certificates.k8s.io',
      'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup',
    ],
    ['version', '/version', 'io.k8s.apimachinery.pkg.version.Info'],
  ];
  for (const [key, path, def] of cases) {
    const doc = await api.request('GET', paths[key]?.serverRelativeURL ?? `/openapi/v3/${key}`);
    assert.equal(doc.status, 200, `${key}: ${doc.text}`);
    const answer = await api.request('GET', path, { headers: { accept: 'application/json' } });
    assert.equal(answer.status, 200, `${path}: ${answer.text}`);
    assert.deepEqual(
      schemaSet(doc.json as Json).validate(def, answer.json),
      [],
      `${path} against ${key}`,
    );
  }
});
