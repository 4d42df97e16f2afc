// Known-field trees: which fields a kind has, and their JSON types. The decoder uses them to find
// unknown fields (fieldValidation) and type mismatches; `any` subtrees are open (kept as sent).
// They are also the one table of the value rules every write obeys (schema/values.ts): which
// fields are int32 or int64 (range checked) and which are Time or MicroTime (parsed and stored in
// the reference's UTC form). A kind added to kinds.ts gets all of this from its entry there.

import type { TimeKind } from './go-time.js';

export type Schema =
  | { readonly t: 'string' }
  | { readonly t: 'int'; readonly bits: 32 | 64 }
  | { readonly t: 'number' }
  | { readonly t: 'bool' }
  | { readonly t: 'any' }
  | { readonly t: 'time'; readonly kind: TimeKind }
  /** `open`: fields not listed are kept and not reported (Pod and Node specs, whose full types belong to the agent). */
  | { readonly t: 'object'; readonly name: string; readonly fields: Readonly<Record<string, Schema>>; readonly open?: boolean }
  | { readonly t: 'map'; readonly values: Schema }
  | { readonly t: 'array'; readonly items: Schema };

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
export const obj = (name: string, fields: Record<string, Schema>): Schema => ({ t: 'object', name, fields });
/** An object of which only the listed fields are typed; the others are kept as sent. */
export const openObj = (name: string, fields: Record<string, Schema>): Schema => ({ t: 'object', name, fields, open: true });
export const map = (values: Schema): Schema => ({ t: 'map', values });
export const arr = (items: Schema): Schema => ({ t: 'array', items });

/** The Go type name used in type-mismatch messages. */
export function goTypeName(s: Schema): string {
  switch (s.t) {
    case 'string':
      return 'string';
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
