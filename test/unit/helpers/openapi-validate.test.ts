// The OpenAPI schema check the integration tests run (test/helpers/openapi-validate.ts) reads the
// reference's IntOrString as the reference's type does: a JSON string, or an integer in int32's
// range (k8s.io/apimachinery/pkg/util/intstr/intstr.go, UnmarshalJSON into `IntVal int32`), in
// the v2 form (`type: string, format: int-or-string`, the reference's swagger.json) and the v3
// form (`format: int-or-string` beside `oneOf: [integer, string]`, the reference's
// /openapi/v3/api/v1, test/fixtures/reference-1.32/openapi-v3-schemas.json).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { schemaSet } from '../../helpers/openapi-validate.js';

type Json = Record<string, unknown>;
const NAME = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
// the generator's record first, the definitions under `schemas`
const reference = (
  JSON.parse(
    readFileSync(
      new URL('../../../../test/fixtures/reference-1.32/openapi-v3-schemas.json', import.meta.url),
      'utf8',
    ),
  ) as { schemas: Record<string, Json> }
).schemas;
/** The reference's /openapi/v2 definition (api/openapi-spec/swagger.json, v1.32), less its description. */
const v2IntOrString = { format: 'int-or-string', type: 'string' };
const holder = (ref: string): Json => ({
  type: 'object',
  properties: { port: { $ref: ref } },
  'x-kubernetes-group-version-kind': [{ group: '', version: 'v1', kind: 'Holder' }],
});

const v2 = schemaSet({
  swagger: '2.0',
  definitions: { [NAME]: v2IntOrString, Holder: holder(`#/definitions/${NAME}`) },
});
const v3 = schemaSet({
  openapi: '3.0.0',
  components: {
    schemas: { [NAME]: reference[NAME], Holder: holder(`#/components/schemas/${NAME}`) },
  },
});

test("the fixture holds the reference's v3 IntOrString: format int-or-string beside a oneOf of integer and string", () => {
  const { description: _description, ...schema } = reference[NAME] ?? {};
  assert.deepEqual(schema, {
    format: 'int-or-string',
    oneOf: [{ type: 'integer' }, { type: 'string' }],
  });
});

for (const [form, set] of [
  ['v2', v2],
  ['v3', v3],
] as const) {
  test(`${form} IntOrString: a string or an int32 integer passes`, () => {
    for (const port of ['http', '', '80', 80, 0, -(2 ** 31), 2 ** 31 - 1])
      assert.deepEqual(set.validate('Holder', { port }), [], JSON.stringify(port));
  });

  test(`${form} IntOrString: what the reference's type cannot decode fails (outside int32, a fraction, a boolean, an object, an array)`, () => {
    for (const port of [2 ** 31, -(2 ** 31) - 1, 1.5, true, {}, [80]])
      assert.notDeepEqual(set.validate('Holder', { port }), [], JSON.stringify(port));
  });
}
