// Known-field trees: which fields a kind has, and their JSON types. The decoder uses them to find
// unknown fields (fieldValidation) and type mismatches; `any` subtrees are open (kept as sent).

export type Schema =
  | { readonly t: 'string' }
  | { readonly t: 'int' }
  | { readonly t: 'number' }
  | { readonly t: 'bool' }
  | { readonly t: 'any' }
  | { readonly t: 'object'; readonly name: string; readonly fields: Readonly<Record<string, Schema>> }
  | { readonly t: 'map'; readonly values: Schema }
  | { readonly t: 'array'; readonly items: Schema };

export const str: Schema = { t: 'string' };
export const int: Schema = { t: 'int' };
export const num: Schema = { t: 'number' };
export const bool: Schema = { t: 'bool' };
export const any: Schema = { t: 'any' };
/** Time and MicroTime travel as strings. */
export const time: Schema = str;
export const obj = (name: string, fields: Record<string, Schema>): Schema => ({ t: 'object', name, fields });
export const map = (values: Schema): Schema => ({ t: 'map', values });
export const arr = (items: Schema): Schema => ({ t: 'array', items });

/** The Go type name used in type-mismatch messages. */
export function goTypeName(s: Schema): string {
  switch (s.t) {
    case 'string':
      return 'string';
    case 'int':
      return 'int64';
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
