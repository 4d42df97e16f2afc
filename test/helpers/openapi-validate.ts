// Validates objects against the schemas of an OpenAPI document the server served (v3
// `components.schemas` or v2 `definitions`), with ajv. Strict as kubectl's strict validation:
// a property a type does not list fails, unless the type keeps unknown fields
// (x-kubernetes-preserve-unknown-fields).
import Ajv from 'ajv';

type Json = Record<string, unknown>;

const INT32 = 2 ** 31;

function strict(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(strict);
  if (v === null || typeof v !== 'object') return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v as Json)) out[k] = strict(x);
  if (out['properties'] !== undefined && out['x-kubernetes-preserve-unknown-fields'] !== true)
    out['additionalProperties'] = false;
  // Swagger 2.0 has no oneOf: the reference's v2 IntOrString is `type: string, format: int-or-string`.
  // Checked as what the reference's type reads (see INT_OR_STRING), not as a plain string.
  if (out['format'] === 'int-or-string' && out['type'] === 'string') {
    delete out['type'];
    out['oneOf'] = [{ type: 'integer' }, { type: 'string' }];
  }
  return out;
}

/**
 * `format: int-or-string` (v2 `type: string` beside it, v3 `oneOf: [integer, string]` beside it,
 * as the reference's /openapi/v2 and /openapi/v3/api/v1 give io.k8s.apimachinery.pkg.util.intstr.IntOrString)
 * holds a JSON string or an integer in int32's range: what the reference's type decodes
 * (k8s.io/apimachinery/pkg/util/intstr/intstr.go, IntOrString.UnmarshalJSON: a quoted value into
 * StrVal, anything else into `IntVal int32`), so what strict (server-side) validation accepts.
 * The reference's schema validators read the v2 form differently, and neither as this:
 * - kubectl's client-side validation against /openapi/v2 (kubectl factory_client_access.go
 *   Validator: validation.NewSchemaValidation over OpenAPISchema()) is kube-openapi's
 *   pkg/util/proto/validation/types.go: primitiveItem.VisitPrimitive returns at once for a
 *   `string` schema, so any scalar (integer, number, boolean, string) passes and no format is
 *   read (its validation_test.go: `apiVersion: 1` against a string gives no error);
 * - kube-openapi's pkg/validation/validate/type.go (go-openapi's validator, which the
 *   apiserver runs on CRD schemas) checks a non-string value's format against the schema's, so
 *   an integer fails `type: string, format: int-or-string` ("must be of type int-or-string");
 *   hence the reference's v3 adds the oneOf, and a CRD's `x-kubernetes-int-or-string: true`
 *   becomes `type: [integer, string]` (apiextensions ConvertJSONSchemaProps).
 */
const INT_OR_STRING = {
  type: 'number',
  validate: (n: number): boolean => Number.isInteger(n) && n >= -INT32 && n < INT32,
} as const;

/** Null fields dropped: a Go client reads null as the zero value, and the reference itself sends `creationTimestamp: null`. */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v as Json)
      .filter(([, x]) => x !== null)
      .map(([k, x]) => [k, withoutNulls(x)]),
  );
}

export interface SchemaSet {
  /** The definition whose x-kubernetes-group-version-kind names this apiVersion and kind. */
  definitionFor(apiVersion: string, kind: string): string | undefined;
  /** ajv's errors (as text) of `obj` against a definition; [] when valid. */
  validate(definition: string, obj: unknown): string[];
}

export function schemaSet(doc: Json): SchemaSet {
  const v3 = doc['components'] !== undefined;
  const defs = (v3 ? (doc['components'] as Json)['schemas'] : doc['definitions']) as Record<
    string,
    Json
  >;
  const ajv = new Ajv({ allErrors: true, format: 'full' });
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -INT32 && n < INT32,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('int-or-string', INT_OR_STRING);
  ajv.addFormat('byte', /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
  const root = v3
    ? { $id: 'doc', components: { schemas: strict(defs) } }
    : { $id: 'doc', definitions: strict(defs) };
  ajv.addSchema(root);
  const prefix = v3 ? 'doc#/components/schemas/' : 'doc#/definitions/';
  return {
    definitionFor(apiVersion, kind) {
      const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
      for (const [name, d] of Object.entries(defs)) {
        const gvks = (d['x-kubernetes-group-version-kind'] as Json[] | undefined) ?? [];
        if (
          gvks.some((g) => g['group'] === group && g['version'] === version && g['kind'] === kind)
        )
          return name;
      }
      return undefined;
    },
    validate(definition, obj) {
      const fn = ajv.getSchema(`${prefix}${definition}`);
      if (fn === undefined) return [`no definition ${definition}`];
      if (fn(withoutNulls(obj)) === true) return [];
      return (fn.errors ?? []).map(
        (e) => `${e.dataPath} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
      );
    },
  };
}
