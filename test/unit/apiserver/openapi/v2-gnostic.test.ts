// The Swagger 2.0 JSON → gnostic openapi.v2.Document conversion on the shapes our own document does
// not use today (body and $ref parameters, boolean additionalProperties, enum/default/example as
// YAML Any, file responses, security definitions, `x-` keys on paths), decoded back with the
// generated descriptor (proved against protoc's bytes in v2-protobuf.test.ts); keys gnostic has
// no field for are named; no JSON object makes it throw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fuzzParams } from '../../../helpers/fuzz-runs.js';
import {
  encodeV2Document,
  openApiV2DocumentType,
} from '../../../../src/apiserver/openapi/v2-protobuf.js';
import { OpenApi } from '../../../../src/apiserver/openapi/index.js';
import { podDef } from '../../../../src/apiserver/registry/resources/pod.js';
import { namesFor } from '../../../../src/common/names.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

const docType = openApiV2DocumentType();
const decode = (b: Buffer): Record<string, unknown> =>
  docType.toObject(docType.decode(b), { longs: Number }) as Record<string, unknown>;
/** The value at a path of keys and indexes in a decoded message (undefined where absent). */
function at(v: unknown, ...path: (string | number)[]): unknown {
  let cur = v;
  for (const k of path)
    cur =
      typeof cur === 'object' && cur !== null
        ? (cur as Record<string | number, unknown>)[k]
        : undefined;
  return cur;
}

const doc = {
  swagger: '2.0',
  info: {
    title: 't',
    version: 'v',
    contact: { name: 'c', email: 'e', 'x-c': 1 },
    license: { name: 'Apache 2.0', url: 5 },
  },
  externalDocs: { url: 'https://docs', description: 'd' },
  basePath: '/base',
  securityDefinitions: {
    OAuth: {
      type: 'oauth2',
      flow: 'accessCode',
      authorizationUrl: 'https://a',
      tokenUrl: 'https://t',
      scopes: { read: 'r' },
    },
    BearerToken: {
      type: 'apiKey',
      name: 'authorization',
      in: 'header',
      description: 'Bearer Token authentication',
    },
  },
  security: [{ BearerToken: [] }],
  paths: {
    'x-paths-ext': { a: 1 },
    '/things/{name}': {
      parameters: [
        { $ref: '#/parameters/name' },
        { name: 'pretty', in: 'query', type: 'string', uniqueItems: true },
      ],
      post: {
        parameters: [
          { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/Thing' } },
        ],
        responses: {
          '200': { description: 'OK', schema: { type: 'file' } },
          '401': { description: 'Unauthorized' },
          'x-code-ext': true,
        },
      },
    },
  },
  definitions: {
    Thing: {
      type: 'object',
      additionalProperties: false,
      properties: {
        mode: { type: 'string', enum: ['A', 'B'], default: 'A', example: 'B' },
        bag: {
          type: 'object',
          additionalProperties: { type: 'integer', format: 'int64', maximum: 10 },
        },
      },
      oneOf: [{ type: 'string' }],
    },
  },
};

test('the shapes gnostic models as oneofs, Any YAML and Named pairs', () => {
  const { bytes, dropped } = encodeV2Document(doc);
  const d = decode(bytes);
  assert.equal(d['base_path'], '/base');
  assert.deepEqual(d['info'], {
    title: 't',
    version: 'v',
    contact: { name: 'c', email: 'e', vendor_extension: [{ name: 'x-c', value: { yaml: '1\n' } }] },
    license: { name: 'Apache 2.0' },
  });
  assert.deepEqual(d['external_docs'], { url: 'https://docs', description: 'd' });
  assert.deepEqual(at(d, 'security_definitions', 'additional_properties', 0), {
    name: 'OAuth',
    value: {
      oauth2_access_code_security: {
        type: 'oauth2',
        flow: 'accessCode',
        authorization_url: 'https://a',
        token_url: 'https://t',
        scopes: { additional_properties: [{ name: 'read', value: 'r' }] },
      },
    },
  });
  assert.deepEqual(at(d, 'security_definitions', 'additional_properties', 1), {
    name: 'BearerToken',
    value: {
      api_key_security: {
        type: 'apiKey',
        name: 'authorization',
        in: 'header',
        description: 'Bearer Token authentication',
      },
    },
  });
  assert.deepEqual(d['security'], [
    { additional_properties: [{ name: 'BearerToken', value: {} }] },
  ]);
  assert.deepEqual(at(d, 'paths', 'vendor_extension'), [
    { name: 'x-paths-ext', value: { yaml: 'a: 1\n' } },
  ]);
  const item = at(d, 'paths', 'path', 0, 'value');
  assert.deepEqual(at(item, 'parameters', 0), { json_reference: { _ref: '#/parameters/name' } });
  assert.deepEqual(at(item, 'parameters', 1), {
    parameter: {
      non_body_parameter: {
        query_parameter_sub_schema: {
          name: 'pretty',
          in: 'query',
          type: 'string',
          unique_items: true,
        },
      },
    },
  });
  assert.deepEqual(at(item, 'post', 'parameters', 0), {
    parameter: {
      body_parameter: {
        name: 'body',
        in: 'body',
        required: true,
        schema: { _ref: '#/definitions/Thing' },
      },
    },
  });
  assert.deepEqual(
    (at(item, 'post', 'responses', 'response_code') as { name: string }[]).map((r) => r.name),
    ['200', '401'],
  );
  assert.deepEqual(at(item, 'post', 'responses', 'response_code', 0, 'value'), {
    response: { description: 'OK', schema: { file_schema: { type: 'file' } } },
  });
  assert.deepEqual(at(item, 'post', 'responses', 'vendor_extension'), [
    { name: 'x-code-ext', value: { yaml: 'true\n' } },
  ]);
  const thing = at(d, 'definitions', 'additional_properties', 0, 'value');
  assert.deepEqual(at(thing, 'additional_properties'), { boolean: false });
  const [mode, bag] = [
    at(thing, 'properties', 'additional_properties', 0),
    at(thing, 'properties', 'additional_properties', 1),
  ];
  assert.deepEqual(at(mode, 'value'), {
    type: { value: ['string'] },
    enum: [{ yaml: 'A\n' }, { yaml: 'B\n' }],
    default: { yaml: 'A\n' },
    example: { yaml: 'B\n' },
  });
  assert.deepEqual(at(bag, 'value', 'additional_properties'), {
    schema: { type: { value: ['integer'] }, format: 'int64', maximum: 10 },
  });
  assert.deepEqual(dropped, ['license.url', 'schema.oneOf']);
});

test("our own document leaves nothing out of the protobuf form (IntOrString and Quantity in the reference's v2 form, no oneOf), so nothing is logged", () => {
  const warnings: string[] = [];
  const o = new OpenApi({
    defs: [podDef],
    reviews: [],
    title: 't',
    version: 'v',
    clock: new ManualClock(),
    names: namesFor('kubernetes'),
    logger: { warn: (f, m) => warnings.push(`${m} ${JSON.stringify(f)}`) },
  });
  const req = {
    method: 'GET',
    search: new URLSearchParams(),
    accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
    ifNoneMatch: undefined,
    ifModifiedSince: undefined,
  };
  o.answer('/openapi/v2', req);
  o.answer('/openapi/v2', req);
  assert.deepEqual(warnings, []);
});

const SCHEMA_KEYS = [
  '$ref',
  'type',
  'format',
  'required',
  'maximum',
  'maxLength',
  'uniqueItems',
  'enum',
  'default',
  'items',
  'properties',
  'additionalProperties',
  'allOf',
  'xml',
  'externalDocs',
  'description',
  'x-e',
];
const schemaish = fc.letrec((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small' },
    fc.dictionary(
      fc.constantFrom(...SCHEMA_KEYS),
      fc.oneof(
        fc.jsonValue({ maxDepth: 2 }),
        tie('schema'),
        fc.dictionary(fc.string({ maxLength: 4 }), tie('schema'), { maxKeys: 2 }),
      ),
      { maxKeys: 5 },
    ),
    fc.jsonValue({ maxDepth: 1 }),
  ),
})).schema;
const param = fc.dictionary(
  fc.constantFrom(
    '$ref',
    'name',
    'in',
    'required',
    'schema',
    'type',
    'items',
    'enum',
    'default',
    'x-p',
  ),
  fc.oneof(
    fc.constantFrom('body', 'query', 'path', 'header', 'formData', 'cookie'),
    fc.jsonValue({ maxDepth: 2 }),
    schemaish,
  ),
  { maxKeys: 5 },
);
const op = fc.dictionary(
  fc.constantFrom('parameters', 'responses', 'tags', 'security', 'operationId', 'x-o'),
  fc.oneof(
    fc.array(param, { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom('200', 'x-r', 'default'),
      fc.dictionary(
        fc.constantFrom('description', 'schema', 'headers', 'examples', '$ref'),
        fc.oneof(schemaish, fc.jsonValue({ maxDepth: 2 })),
        { maxKeys: 3 },
      ),
      { maxKeys: 2 },
    ),
    fc.jsonValue({ maxDepth: 2 }),
  ),
  { maxKeys: 4 },
);

test('any JSON object, and any document-shaped one: converted and encoded without a throw', () => {
  fc.assert(
    fc.property(
      fc.dictionary(
        fc.constantFrom(
          'swagger',
          'info',
          'paths',
          'definitions',
          'parameters',
          'responses',
          'security',
          'securityDefinitions',
          'tags',
          'externalDocs',
          'x-a',
          'other',
        ),
        fc.jsonValue({ maxDepth: 4 }),
      ),
      (d) => {
        decode(encodeV2Document(d).bytes);
      },
    ),
    fuzzParams(200),
  );
  fc.assert(
    fc.property(
      fc.dictionary(fc.string({ maxLength: 5 }), schemaish, { maxKeys: 3 }),
      fc.dictionary(
        fc.constantFrom('/a', '/b', 'x-p'),
        fc.dictionary(
          fc.constantFrom('get', 'post', 'parameters', '$ref', 'x-i'),
          fc.oneof(op, fc.array(param, { maxLength: 2 })),
          { maxKeys: 3 },
        ),
        { maxKeys: 2 },
      ),
      fc.dictionary(fc.string({ maxLength: 3 }), param, { maxKeys: 2 }),
      (definitions, paths, parameters) => {
        decode(encodeV2Document({ swagger: '2.0', definitions, paths, parameters }).bytes);
      },
    ),
    fuzzParams(300),
  );
});
