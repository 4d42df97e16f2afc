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
  if (out['properties'] !== undefined && out['x-kubernetes-preserve-unknown-fields'] !== true) out['additionalProperties'] = false;
  // Swagger 2.0 has no oneOf: the reference's v2 IntOrString is `type: string, format: int-or-string`,
  // which its clients (kube-openapi's validation) read as an integer or a string.
  if (out['format'] === 'int-or-string' && out['type'] === 'string') {
    delete out['type'];
    out['oneOf'] = [{ type: 'integer' }, { type: 'string' }];
  }
  return out;
}

/** Null fields dropped: a Go client reads null as the zero value, and the reference itself sends `creationTimestamp: null`. */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v as Json).filter(([, x]) => x !== null).map(([k, x]) => [k, withoutNulls(x)]));
}

export interface SchemaSet {
  /** The definition whose x-kubernetes-group-version-kind names this apiVersion and kind. */
  definitionFor(apiVersion: string, kind: string): string | undefined;
  /** ajv's errors (as text) of `obj` against a definition; [] when valid. */
  validate(definition: string, obj: unknown): string[];
}

export function schemaSet(doc: Json): SchemaSet {
  const v3 = doc['components'] !== undefined;
  const defs = (v3 ? (doc['components'] as Json)['schemas'] : doc['definitions']) as Record<string, Json>;
  const ajv = new Ajv({ allErrors: true, format: 'full' });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -INT32 && n < INT32 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  // The reference's IntOrString definition carries this format beside its oneOf of integer and string.
  ajv.addFormat('int-or-string', () => true);
  ajv.addFormat('byte', /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
  const root = v3 ? { $id: 'doc', components: { schemas: strict(defs) } } : { $id: 'doc', definitions: strict(defs) };
  ajv.addSchema(root);
  const prefix = v3 ? 'doc#/components/schemas/' : 'doc#/definitions/';
  return {
    definitionFor(apiVersion, kind) {
      const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
      for (const [name, d] of Object.entries(defs)) {
        const gvks = (d['x-kubernetes-group-version-kind'] as Json[] | undefined) ?? [];
        if (gvks.some((g) => g['group'] === group && g['version'] === version && g['kind'] === kind)) return name;
      }
      return undefined;
    },
    validate(definition, obj) {
      const fn = ajv.getSchema(`${prefix}${definition}`);
      if (fn === undefined) return [`no definition ${definition}`];
      if (fn(withoutNulls(obj)) === true) return [];
      return (fn.errors ?? []).map((e) => `${e.dataPath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    },
  };
}
