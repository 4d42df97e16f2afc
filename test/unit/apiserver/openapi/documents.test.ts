// The generated documents and their HTTP answers, without a server: group names follow the
// profile, every $ref resolves, the write operations declare fieldValidation (kubectl's test for
// server-side validation), caching answers as kube-openapi's handlers give them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { OpenApi, type OpenApiRequest } from '../../../../src/apiserver/openapi/index.js';
import { eventDef } from '../../../../src/apiserver/registry/resources/event.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { namesFor } from '../../../../src/common/names.js';
import { openApiFor } from '../../../helpers/openapi-catalog.js';

type Json = Record<string, unknown>;

const get = (o: Partial<OpenApiRequest> = {}): OpenApiRequest => ({
  method: 'GET',
  search: new URLSearchParams(),
  accept: undefined,
  ifNoneMatch: undefined,
  ifModifiedSince: undefined,
  ...o,
});

function refs(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) v.forEach((x) => refs(x, out));
  else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v as Json)) {
      if (k === '$ref' && typeof x === 'string') out.push(x);
      else refs(x, out);
    }
  }
  return out;
}

test('platform profile: documents under the profile groups, GVKs name them', () => {
  const o = openApiFor('platform', new ManualClock(), 'example.org');
  // As the reference's index: each group-version, each group, and api, apis and version.
  assert.deepEqual(Object.keys(o.index().paths), [
    'api',
    'api/v1',
    'apis',
    'apis/authentication.example.org',
    'apis/authentication.example.org/v1',
    'apis/authorization.example.org',
    'apis/authorization.example.org/v1',
    'apis/certificates.example.org',
    'apis/certificates.example.org/v1',
    'apis/coordination.example.org',
    'apis/coordination.example.org/v1',
    'apis/rbac.authorization.example.org',
    'apis/rbac.authorization.example.org/v1',
    'version',
  ]);
  const group = o.v3Document('apis/certificates.example.org') as {
    components: { schemas: Record<string, Json> };
    paths: Record<string, Json>;
  };
  assert.deepEqual(Object.keys(group.paths), ['/apis/certificates.example.org/']);
  assert.deepEqual(Object.keys(group.components.schemas), [
    'io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup',
    'io.k8s.apimachinery.pkg.apis.meta.v1.GroupVersionForDiscovery',
    'io.k8s.apimachinery.pkg.apis.meta.v1.ServerAddressByClientCIDR',
  ]);
  const version = o.v3Document('version') as {
    paths: Record<string, { get: { responses: Record<string, { content: Json }> } }>;
  };
  assert.deepEqual(version.paths['/version/']?.get.responses['200']?.content, {
    'application/json': {
      schema: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.version.Info' },
    },
  });
  const doc = o.v3Document('apis/certificates.example.org/v1') as {
    components: { schemas: Record<string, Json> };
    paths: Record<string, Json>;
  };
  assert.deepEqual(
    doc.components.schemas['io.k8s.api.certificates.v1.CertificateSigningRequest']?.[
      'x-kubernetes-group-version-kind'
    ],
    [{ group: 'certificates.example.org', version: 'v1', kind: 'CertificateSigningRequest' }],
  );
  assert.ok(
    '/apis/certificates.example.org/v1/certificatesigningrequests/{name}/approval' in doc.paths,
  );
});

test('every $ref of every v3 document resolves inside that document; v2 likewise', () => {
  const o = openApiFor('kubernetes');
  for (const key of Object.keys(o.index().paths)) {
    const doc = o.v3Document(key) as { components: { schemas: Json } };
    for (const r of refs(doc))
      assert.ok(r.replace('#/components/schemas/', '') in doc.components.schemas, `${key}: ${r}`);
  }
  const v2 = JSON.parse(o.answer('/openapi/v2', get())?.body.toString('utf8') ?? '{}') as {
    definitions: Json;
  };
  for (const r of refs(v2))
    assert.ok(r.replace('#/definitions/', '') in v2.definitions, `v2: ${r}`);
});

test('PATCH operations carry fieldValidation and the GVK (what kubectl looks for to validate on the server)', () => {
  const doc = openApiFor('kubernetes').v3Document('api/v1') as {
    paths: Record<string, Record<string, Json>>;
  };
  const patch = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}']?.['patch'];
  assert.deepEqual(patch?.['x-kubernetes-group-version-kind'], {
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
  });
  assert.ok(
    (patch?.['parameters'] as Json[]).some(
      (p) => p['name'] === 'fieldValidation' && p['in'] === 'query',
    ),
  );
  assert.equal(
    doc.paths['/api/v1/namespaces/{name}']?.['delete']?.['x-kubernetes-action'],
    'delete',
  );
  assert.equal(
    doc.paths['/api/v1/namespaces']?.['delete'],
    undefined,
    'namespaces have no deletecollection',
  );
});

test('a served resource without a schema of its group is left out and reported', () => {
  const o = new OpenApi({
    defs: [{ ...eventDef, group: 'example.com' }],
    reviews: [],
    title: 't',
    version: 'v',
    clock: new ManualClock(),
    names: namesFor('kubernetes'),
  });
  assert.deepEqual(o.undocumented, ['events.example.com']);
  assert.deepEqual(Object.keys(o.index().paths), ['api', 'apis', 'version']);
});

test('ETag is the upper-case hex SHA-512 of the body; If-None-Match and If-Modified-Since give 304; 406 for the v3 protobuf form (v2 protobuf: v2-protobuf.test.ts)', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
  const o = openApiFor('kubernetes', clock);
  const r = o.answer('/openapi/v2', get());
  assert.equal(r?.status, 200);
  const etag = createHash('sha512')
    .update(r?.body ?? '')
    .digest('hex')
    .toUpperCase();
  assert.equal(r?.headers['Etag'], `"${etag}"`);
  assert.equal(r?.headers['Last-Modified'], 'Thu, 01 Jan 2026 12:00:00 GMT');
  assert.equal(o.answer('/openapi/v2', get({ ifNoneMatch: `W/"${etag}"` }))?.status, 304);
  assert.equal(o.answer('/openapi/v2', get({ ifNoneMatch: '"other"' }))?.status, 200);
  assert.equal(
    o.answer('/openapi/v2', get({ ifModifiedSince: 'Thu, 01 Jan 2026 12:00:00 GMT' }))?.status,
    304,
  );
  assert.equal(
    o.answer('/openapi/v2', get({ ifModifiedSince: 'Thu, 01 Jan 2026 11:59:59 GMT' }))?.status,
    200,
  );
  assert.equal(
    o.answer(
      '/openapi/v2',
      get({ accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' }),
    )?.status,
    406,
  );
  assert.equal(
    o.answer(
      '/openapi/v3/api/v1',
      get({ accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' }),
    )?.status,
    406,
  );
  assert.equal(
    o.answer('/openapi/v2', get({ accept: 'application/*;q=0.5, text/html' }))?.status,
    200,
  );
  assert.equal(o.answer('/openapi/v2', get({ method: 'HEAD' }))?.body.length, 0);
  assert.equal(o.answer('/openapi/v3/apis/nope/v1', get()), undefined);
});

test('?hash=: the current hash is immutable for a year (Expires in RFC 1123 UTC), another hash moves permanently', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
  const o = openApiFor('kubernetes', clock);
  const url = o.index().paths['api/v1']?.serverRelativeURL ?? '';
  const hash = url.split('hash=')[1] ?? '';
  const r = o.answer('/openapi/v3/api/v1', get({ search: new URLSearchParams({ hash }) }));
  assert.deepEqual(
    [r?.status, r?.headers['Cache-Control'], r?.headers['Expires'], r?.headers['Vary']],
    [200, 'public, immutable', 'Fri, 01 Jan 2027 12:00:00 UTC', 'Accept'],
  );
  const moved = o.answer(
    '/openapi/v3/api/v1',
    get({ search: new URLSearchParams({ hash: 'ABC' }) }),
  );
  assert.deepEqual([moved?.status, moved?.headers['Location']], [301, url]);
});
