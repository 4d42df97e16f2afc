// The schema table (schema/kinds.ts) as OpenAPI definitions: each named object type becomes one
// definition (`io.k8s.api.core.v1.Pod`), referenced where it is used, with the reference's
// extensions (list types and keys, patch strategy and merge key, atomic maps). v3 documents refer
// to `#/components/schemas/<name>` through `allOf` (as the reference writes fields that carry a
// description); v2 documents to `#/definitions/<name>` directly. A served kind carries our
// description of it (descriptions.ts); fields carry none.

import type { Describe } from './descriptions.js';
import { definitionName, META_PKG, type ListExt, type Schema } from '../schema/types.js';

export type Json = Record<string, unknown>;
export type Flavour = 'v2' | 'v3';

export interface Gvk {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

const TIME = `${META_PKG}.Time`;
const MICRO_TIME = `${META_PKG}.MicroTime`;
const STRING_DATE_TIME: Json = { type: 'string', format: 'date-time' };
/**
 * The reference's definitions of the values kept as sent that are not objects, per flavour: v3
 * has the types' OpenAPIV3OneOfTypes as a `oneOf`; Swagger 2.0 has no `oneOf`, so v2 has their
 * OpenAPISchemaType and OpenAPISchemaFormat (the reference's /openapi/v2: IntOrString is
 * `{"format": "int-or-string", "type": "string"}`, Quantity `{"type": "string"}`).
 */
const ANY_SHAPES: Readonly<Record<Flavour, Readonly<Record<string, Json>>>> = {
  v3: {
    'io.k8s.apimachinery.pkg.api.resource.Quantity': {
      oneOf: [{ type: 'string' }, { type: 'number' }],
    },
    'io.k8s.apimachinery.pkg.util.intstr.IntOrString': {
      format: 'int-or-string',
      oneOf: [{ type: 'integer' }, { type: 'string' }],
    },
  },
  v2: {
    'io.k8s.apimachinery.pkg.api.resource.Quantity': { type: 'string' },
    'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { format: 'int-or-string', type: 'string' },
  },
};

export function refTo(flavour: Flavour, name: string): Json {
  return { $ref: flavour === 'v3' ? `#/components/schemas/${name}` : `#/definitions/${name}` };
}

function listExtensions(x: ListExt | undefined): Json {
  const out: Json = {};
  if (x?.mapKeys !== undefined) out['x-kubernetes-list-map-keys'] = [...x.mapKeys];
  if (x?.listType !== undefined) out['x-kubernetes-list-type'] = x.listType;
  if (x?.patchMergeKey !== undefined) out['x-kubernetes-patch-merge-key'] = x.patchMergeKey;
  if (x?.patchStrategy !== undefined) out['x-kubernetes-patch-strategy'] = x.patchStrategy;
  return out;
}

export interface DefinitionsOptions {
  readonly flavour: Flavour;
  /** The description of a definition; none when absent. */
  readonly describe?: Describe;
}

/** Collects the definitions a document needs while converting fields. */
export class Definitions {
  readonly byName = new Map<string, Json>();
  private readonly sources = new Map<string, Schema>();
  private readonly gvks = new Map<string, Gvk[]>();
  private readonly flavour: Flavour;
  private readonly describe: Describe;

  constructor(o: DefinitionsOptions) {
    this.flavour = o.flavour;
    this.describe = o.describe ?? (() => undefined);
  }

  /** Attaches `x-kubernetes-group-version-kind` to a definition (added before or after). */
  tag(name: string, gvk: Gvk): void {
    this.gvks.set(name, [...(this.gvks.get(name) ?? []), gvk]);
    const def = this.byName.get(name);
    if (def !== undefined) def['x-kubernetes-group-version-kind'] = this.gvks.get(name);
  }

  /** Adds a named type (an object schema) and returns its definition name. */
  addNamed(s: Schema): string {
    if (s.t !== 'object') throw new Error(`only object types are named (got ${s.t})`);
    const name = definitionName(s);
    const seen = this.sources.get(name);
    if (seen !== undefined) {
      if (seen !== s && JSON.stringify(seen) !== JSON.stringify(s))
        throw new Error(`two different types are named ${name}`);
      return name;
    }
    this.sources.set(name, s);
    const description = this.describe(name);
    const def: Json =
      description === undefined ? { type: 'object' } : { description, type: 'object' };
    this.byName.set(name, def);
    Object.assign(def, this.objectBody(s));
    const gvks = this.gvks.get(name);
    if (gvks !== undefined) def['x-kubernetes-group-version-kind'] = gvks;
    return name;
  }

  private objectBody(s: Extract<Schema, { t: 'object' }>): Json {
    const out: Json = {};
    if (s.opts?.required !== undefined) out['required'] = [...s.opts.required];
    const props: Json = {};
    for (const [k, f] of Object.entries(s.fields)) props[k] = this.field(f);
    out['properties'] = props;
    if (s.opts?.atomic === true) out['x-kubernetes-map-type'] = 'atomic';
    // Fields beyond the listed ones are kept as sent (Pod and Node specs).
    if (s.open === true) out['x-kubernetes-preserve-unknown-fields'] = true;
    return out;
  }

  private named(name: string, def: Json): Json {
    const description = this.describe(name);
    if (!this.byName.has(name))
      this.byName.set(name, description === undefined ? def : { description, ...def });
    return this.use(name);
  }

  /** A reference as a field: v3 wraps it in allOf (the reference's form), v2 uses it directly. */
  private use(name: string): Json {
    return this.flavour === 'v3' ? { allOf: [refTo('v3', name)] } : refTo('v2', name);
  }

  /** A schema as a field, an array item or a map value. */
  field(s: Schema): Json {
    switch (s.t) {
      case 'string':
        return s.format === undefined ? { type: 'string' } : { type: 'string', format: s.format };
      case 'int':
        return { type: 'integer', format: `int${s.bits}` };
      case 'number':
        return { type: 'number', format: 'double' };
      case 'bool':
        return { type: 'boolean' };
      case 'time':
        return this.named(s.kind === 'Time' ? TIME : MICRO_TIME, { ...STRING_DATE_TIME });
      case 'any':
        return s.ref === undefined
          ? { 'x-kubernetes-preserve-unknown-fields': true }
          : this.named(s.ref, { ...(ANY_SHAPES[this.flavour][s.ref] ?? { type: 'object' }) });
      case 'object':
        return this.use(this.addNamed(s));
      case 'map':
        return {
          type: 'object',
          additionalProperties: this.field(s.values),
          ...(s.atomic === true ? { 'x-kubernetes-map-type': 'atomic' } : {}),
        };
      case 'array':
        return { type: 'array', items: this.field(s.items), ...listExtensions(s.list) };
    }
  }

  /** The definitions, sorted by name (a stable document, so a stable ETag). */
  sorted(): Json {
    const out: Json = {};
    for (const k of [...this.byName.keys()].sort()) out[k] = this.byName.get(k);
    return out;
  }
}
