// /openapi/v2 as gnostic's protobuf (application/com.github.proto-openapi.spec.v2@v1.0+protobuf),
// decoded with the generated openapi.v2 descriptor, which the first test proves against protoc's
// encoding of gnostic's OpenAPIv2.proto (test/fixtures/protobuf/openapi-v2, written by
// scripts/gen-proto-goldens.sh): the same paths, definitions, properties, $ref and vendor
// extensions as the JSON document; the bytes begin as the reference's do; the reference's
// negotiation, ETag and 304.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { OPENAPIV2_DESCRIPTOR_JSON } from '../../../../src/common/protobuf/openapiv2-descriptor.generated.js';
import { ManualClock } from '../../../helpers/manual-clock.js';
import { openApiFor } from '../../../helpers/openapi-catalog.js';
import type { OpenApiRequest } from '../../../../src/apiserver/openapi/index.js';
import { encodeV2Document } from '../../../../src/apiserver/openapi/v2-protobuf.js';

type Json = Record<string, unknown>;
interface Named<T> {
  name: string;
  value: T;
}
interface PbSchema {
  _ref?: string;
  description?: string;
  type?: { value: string[] };
  properties?: { additional_properties: Named<PbSchema>[] };
  items?: { schema: PbSchema[] };
  vendor_extension?: Named<{ yaml: string }>[];
  required?: string[];
}

const PB = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const PB_OLD = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const o = openApiFor('kubernetes', new ManualClock());
const req = (h: Partial<OpenApiRequest>): OpenApiRequest => ({
  method: 'GET',
  search: new URLSearchParams(),
  accept: undefined,
  ifNoneMatch: undefined,
  ifModifiedSince: undefined,
  ...h,
});
const docType = protobuf.Root.fromJSON(
  JSON.parse(OPENAPIV2_DESCRIPTOR_JSON) as protobuf.INamespace,
).lookupType('openapi.v2.Document');
const GOLDEN = join(process.cwd(), 'test', 'fixtures', 'protobuf', 'openapi-v2');
const sha512 = (b: Buffer): string => createHash('sha512').update(b).digest('hex').toUpperCase();

const json = JSON.parse(
  o.answer('/openapi/v2', req({ accept: 'application/json' }))!.body.toString('utf8'),
) as { paths: Record<string, Json>; definitions: Record<string, Json> };
const answer = o.answer('/openapi/v2', req({ accept: PB }))!;
const decoded = docType.toObject(docType.decode(answer.body), { longs: Number, arrays: true }) as {
  swagger: string;
  info: { title: string; version: string };
  paths: { path: Named<Json>[] };
  definitions: { additional_properties: Named<PbSchema>[] };
};
const pbDefs = new Map(decoded.definitions.additional_properties.map((d) => [d.name, d.value]));

test("the descriptor reads and writes protoc's openapi.v2.Document bytes (every message kind we send)", () => {
  const bytes = readFileSync(join(GOLDEN, 'document.bin'));
  const expected = JSON.parse(readFileSync(join(GOLDEN, 'document.json'), 'utf8')) as Json;
  assert.deepEqual(docType.toObject(docType.decode(bytes), { longs: Number }), expected);
  const encoded = Buffer.from(docType.encode(docType.fromObject(expected)).finish());
  assert.equal(encoded.toString('hex'), bytes.toString('hex'));
});

test('the protobuf answer: its content type, and an ETag of its own bytes (not the JSON ETag)', () => {
  assert.equal(answer.status, 200);
  // kube-openapi's ReturnedContentType for both protobuf offers is the `.` form.
  assert.equal(answer.headers['Content-Type'], PB_OLD);
  assert.equal(answer.headers['Etag'], `"${sha512(answer.body)}"`);
  assert.notEqual(
    answer.headers['Etag'],
    o.answer('/openapi/v2', req({ accept: 'application/json' }))!.headers['Etag'],
  );
  const old = o.answer('/openapi/v2', req({ accept: PB_OLD }))!;
  assert.equal(old.status, 200);
  assert.equal(old.headers['Content-Type'], PB_OLD);
  assert.deepEqual(old.body, answer.body);
  assert.strictEqual(
    o.answer('/openapi/v2', req({ accept: PB }))!.body,
    answer.body,
    'encoded once and cached',
  );
});

test('bytes-level facts: swagger "2.0" first (field 1), then info (field 2), paths (8), definitions (9)', () => {
  assert.deepEqual([...answer.body.subarray(0, 6)], [0x0a, 0x03, 0x32, 0x2e, 0x30, 0x12]);
  const r = protobuf.Reader.create(answer.body);
  const fields: number[] = [];
  while (r.pos < r.len) {
    const tag = r.uint32();
    fields.push(tag >>> 3);
    assert.equal(tag & 7, 2, `field ${tag >>> 3} is length-delimited`);
    r.skipType(2);
  }
  assert.deepEqual(fields, [1, 2, 8, 9]);
});

test('decoded: every path and every definition of the JSON document, in its order', () => {
  assert.equal(decoded.swagger, '2.0');
  assert.deepEqual([decoded.info.title, decoded.info.version], ['Kubernetes', 'v1.32.0']);
  assert.deepEqual(
    decoded.paths.path.map((p) => p.name),
    Object.keys(json.paths),
  );
  assert.deepEqual([...pbDefs.keys()], Object.keys(json.definitions));
});

test('decoded schemas: properties, $ref as _ref, type as TypeItem, items, required, vendor extensions as YAML', () => {
  const pod = pbDefs.get('io.k8s.api.core.v1.Pod')!;
  const podJson = json.definitions['io.k8s.api.core.v1.Pod'] as {
    properties: Record<string, Json>;
  };
  assert.deepEqual(
    pod.properties!.additional_properties.map((p) => p.name),
    Object.keys(podJson.properties),
  );
  const meta = pod.properties!.additional_properties.find((p) => p.name === 'metadata')!.value;
  assert.equal(meta._ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  assert.deepEqual(pod.type, { value: ['object'] });
  const gvk = pod.vendor_extension!.find((e) => e.name === 'x-kubernetes-group-version-kind')!;
  // The reference's JSON has the map's keys sorted (Go's encoding of map[string]interface{}).
  assert.equal(gvk.value.yaml, '- group: ""\n  kind: Pod\n  version: v1\n');
  const spec = pbDefs.get('io.k8s.api.core.v1.PodSpec')!;
  const containers = spec.properties!.additional_properties.find(
    (p) => p.name === 'containers',
  )!.value;
  assert.deepEqual(containers.type, { value: ['array'] });
  assert.equal(containers.items!.schema[0]!._ref, '#/definitions/io.k8s.api.core.v1.Container');
  assert.ok(spec.required!.includes('containers'));
  for (const [name, def] of pbDefs) {
    const j = json.definitions[name] as {
      properties?: Record<string, { $ref?: string; description?: string }>;
    };
    for (const p of def.properties?.additional_properties ?? []) {
      assert.equal(
        p.value._ref ?? undefined,
        j.properties?.[p.name]?.$ref,
        `${name}.${p.name} $ref`,
      );
      assert.equal(
        p.value.description ?? undefined,
        j.properties?.[p.name]?.description,
        `${name}.${p.name} description`,
      );
    }
  }
});

test('decoded operations: parameters as ParametersItem oneofs, responses as ResponseValue, x-kubernetes-action', () => {
  const item = decoded.paths.path.find(
    (p) => p.name === '/api/v1/namespaces/{namespace}/pods/{name}',
  )!.value as {
    get: {
      operation_id?: string;
      parameters?: Json[];
      responses: {
        response_code: Named<{ response: { description: string; schema: { schema: PbSchema } } }>[];
      };
      vendor_extension: Named<{ yaml: string }>[];
    };
    parameters: {
      parameter: {
        non_body_parameter: { path_parameter_sub_schema?: Json; query_parameter_sub_schema?: Json };
      };
    }[];
  };
  const ok = item.get.responses.response_code.find((r) => r.name === '200')!.value.response;
  assert.equal(ok.description, 'OK');
  assert.equal(ok.schema.schema._ref, '#/definitions/io.k8s.api.core.v1.Pod');
  assert.equal(
    item.get.vendor_extension.find((e) => e.name === 'x-kubernetes-action')!.value.yaml,
    'get\n',
  );
  const pathParams = item.parameters
    .map((p) => p.parameter.non_body_parameter.path_parameter_sub_schema)
    .filter((p) => p !== undefined);
  assert.deepEqual(pathParams.map((p) => [p['name'], p['in'], p['required'], p['type']]).sort(), [
    ['name', 'path', true, 'string'],
    ['namespace', 'path', true, 'string'],
  ]);
});

test('negotiation as kube-openapi: JSON first for */*, q-values honoured, 406 with no body for a type not offered', () => {
  assert.equal(
    o.answer('/openapi/v2', req({ accept: '*/*' }))!.headers['Content-Type'],
    'application/json',
  );
  assert.equal(
    o.answer('/openapi/v2', req({ accept: `application/json;q=0.5, ${PB}` }))!.headers[
      'Content-Type'
    ],
    PB_OLD,
  );
  assert.equal(
    o.answer('/openapi/v2', req({ accept: `${PB}, application/json` }))!.headers['Content-Type'],
    PB_OLD,
  );
  assert.equal(
    o.answer('/openapi/v2', req({ accept: `${PB_OLD}, application/json` }))!.headers[
      'Content-Type'
    ],
    PB_OLD,
  );
  for (const accept of [
    'application/com.github.proto-openapi.spec.v3@v1.0+protobuf',
    'text/html',
    'application/yaml',
  ]) {
    const r = o.answer('/openapi/v2', req({ accept }))!;
    assert.equal(r.status, 406, accept);
    assert.equal(r.body.length, 0);
  }
});

test('If-None-Match with the protobuf ETag: 304 with the ETag and no body; the JSON ETag does not match it', () => {
  const etag = answer.headers['Etag']!;
  const r = o.answer('/openapi/v2', req({ accept: PB, ifNoneMatch: etag }))!;
  assert.equal(r.status, 304);
  assert.equal(r.headers['Etag'], etag);
  assert.equal(r.body.length, 0);
  const jsonEtag = o.answer('/openapi/v2', req({ accept: 'application/json' }))!.headers['Etag']!;
  assert.equal(o.answer('/openapi/v2', req({ accept: PB, ifNoneMatch: jsonEtag }))!.status, 200);
});

test("IntOrString and Quantity as the reference's /openapi/v2 has them (Swagger 2.0 has no oneOf): type string, IntOrString with format int-or-string; nothing left out of the protobuf", () => {
  // The reference's api/openapi-spec/swagger.json (v1.32), definition
  // io.k8s.apimachinery.pkg.util.intstr.IntOrString, without its description (we serve none).
  const referenceIntOrString = { format: 'int-or-string', type: 'string' };
  assert.deepEqual(
    json.definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString'],
    referenceIntOrString,
  );
  const quantity = json.definitions['io.k8s.apimachinery.pkg.api.resource.Quantity']!;
  assert.equal(quantity['type'], 'string');
  assert.equal(quantity['oneOf'], undefined);
  const pb = pbDefs.get('io.k8s.apimachinery.pkg.util.intstr.IntOrString') as PbSchema & {
    format?: string;
  };
  assert.deepEqual(
    [pb.type, pb.format, pb.description],
    [{ value: ['string'] }, 'int-or-string', undefined],
  );
  assert.deepEqual(pbDefs.get('io.k8s.apimachinery.pkg.api.resource.Quantity')!.type, {
    value: ['string'],
  });
  assert.deepEqual(encodeV2Document(json).dropped, []);
  // v3 keeps the oneOf (the reference's /openapi/v3 has it).
  const v3 = JSON.parse(
    o.answer('/openapi/v3/api/v1', req({ accept: 'application/json' }))!.body.toString('utf8'),
  ) as { components: { schemas: Record<string, Json> } };
  assert.deepEqual(
    v3.components.schemas['io.k8s.apimachinery.pkg.util.intstr.IntOrString']!['oneOf'],
    [{ type: 'integer' }, { type: 'string' }],
  );
});
