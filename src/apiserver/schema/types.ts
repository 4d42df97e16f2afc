// Known-field trees: which fields a kind has, and their JSON types. The decoder uses them to find
// unknown fields (fieldValidation) and type mismatches; `any` subtrees are open (kept as sent).
// They are also the one table of the value rules every write obeys (schema/values.ts): which
// fields are int32 or int64 (range checked) and which are Time or MicroTime (parsed and stored in
// the reference's UTC form). A kind added to kinds.ts gets all of this from its entry there.
// The same trees are the one description the OpenAPI documents are generated from
// (src/apiserver/openapi/): each object carries its definition name in the reference's Go package
// (`pkg`), each list its list type and strategic-merge keys (which patch/meta.ts reads too).

import type { TimeKind } from './go-time.js';

/**
 * How a list merges: the reference's `x-kubernetes-list-type`/`-list-map-keys` and
 * `x-kubernetes-patch-strategy`/`-merge-key`.
 */
export interface ListExt {
  readonly listType?: 'atomic' | 'set' | 'map';
  readonly mapKeys?: readonly string[];
  /** `merge` or `merge,retainKeys`. */
  readonly patchStrategy?: string;
  readonly patchMergeKey?: string;
}

/** The Go package of the core group's types, the default of obj(). */
export const CORE_PKG = 'io.k8s.api.core.v1';
export const META_PKG = 'io.k8s.apimachinery.pkg.apis.meta.v1';

export interface ObjOptions {
  /** The OpenAPI package of the type (default CORE_PKG): the definition is `<pkg>.<Name>`. */
  readonly pkg?: string;
  /** Fields the reference requires (OpenAPI `required`). */
  readonly required?: readonly string[];
  /** `x-kubernetes-map-type: atomic` (the object is replaced whole by apply). */
  readonly atomic?: boolean;
}

export type Schema =
  /** `byte`: a []byte, base64 in JSON. */
  | { readonly t: 'string'; readonly format?: 'byte' }
  | { readonly t: 'int'; readonly bits: 32 | 64 }
  | { readonly t: 'number' }
  | { readonly t: 'bool' }
  /** Any JSON; `ref` names the reference's definition of it (FieldsV1, RawExtension). */
  | { readonly t: 'any'; readonly ref?: string }
  | { readonly t: 'time'; readonly kind: TimeKind }
  /**
   * `open`: fields not listed are kept and not reported (the metadata-only check of a kind without
   * an entry).
   */
  | {
      readonly t: 'object';
      readonly name: string;
      readonly fields: Readonly<Record<string, Schema>>;
      readonly open?: boolean;
      readonly opts?: ObjOptions;
    }
  /** `atomic`: x-kubernetes-map-type atomic (apply replaces the map whole). */
  | { readonly t: 'map'; readonly values: Schema; readonly atomic?: boolean }
  | { readonly t: 'array'; readonly items: Schema; readonly list?: ListExt };

export const str: Schema = { t: 'string' };
export const int32: Schema = { t: 'int', bits: 32 };
export const int64: Schema = { t: 'int', bits: 64 };
export const num: Schema = { t: 'number' };
export const bool: Schema = { t: 'bool' };
export const any: Schema = { t: 'any' };
/** metav1.Time: RFC 3339, stored in UTC at whole seconds. */
export const time: Schema = { t: 'time', kind: 'Time' };
/** metav1.MicroTime: RFC 3339 with exactly six fraction digits, stored in UTC. */
export const microTime: Schema = { t: 'time', kind: 'MicroTime' };
/** A []byte field: a base64 string. */
export const bytes: Schema = { t: 'string', format: 'byte' };
export const obj = (
  name: string,
  fields: Record<string, Schema>,
  opts?: ObjOptions,
): Extract<Schema, { t: 'object' }> => ({
  t: 'object',
  name,
  fields,
  ...(opts === undefined ? {} : { opts }),
});
/** An object of which only the listed fields are typed; the others are kept as sent. */
export const openObj = (
  name: string,
  fields: Record<string, Schema>,
  opts?: ObjOptions,
): Schema => ({ t: 'object', name, fields, open: true, ...(opts === undefined ? {} : { opts }) });
export const map = (values: Schema): Schema => ({ t: 'map', values });
export const atomicMap = (values: Schema): Schema => ({ t: 'map', values, atomic: true });
export const arr = (items: Schema, list?: ListExt): Schema => ({
  t: 'array',
  items,
  ...(list === undefined ? {} : { list }),
});
/**
 * A list merged by key (`x-kubernetes-list-type: map` and the strategic-merge key, the first key).
 */
export const keyed = (items: Schema, ...keys: string[]): Schema =>
  arr(items, {
    listType: 'map',
    mapKeys: keys,
    patchStrategy: 'merge',
    patchMergeKey: keys[0] ?? '',
  });
export const atomicList = (items: Schema): Schema => arr(items, { listType: 'atomic' });
export const setList = (items: Schema): Schema => arr(items, { listType: 'set' });

/** The OpenAPI definition name of an object type (`io.k8s.api.core.v1.Pod`). */
export function definitionName(s: Extract<Schema, { t: 'object' }>): string {
  return `${s.opts?.pkg ?? CORE_PKG}.${s.name.replace(/^v1\./, '')}`;
}

/** The Go type name used in type-mismatch messages. */
export function goTypeName(s: Schema): string {
  switch (s.t) {
    case 'string':
      return s.format === 'byte' ? '[]uint8' : 'string';
    case 'int':
      return `int${s.bits}`;
    case 'time':
      return 'string';
    case 'number':
      return 'float64';
    case 'bool':
      return 'bool';
    case 'any':
      return 'interface {}';
    case 'object':
      return s.name;
    case 'map':
      return `map[string]${goTypeName(s.values)}`;
    case 'array':
      return `[]${goTypeName(s.items)}`;
  }
}
