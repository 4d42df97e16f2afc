// What the reference's unstructured converter (runtime.DefaultUnstructuredConverter, used on a
// strategic merge patch's result) says when a value does not fit its field: its words differ from
// encoding/json's. The value's kind is Go's reflect kind of what JSON decoding made of it.
import { goTypeName, type Schema } from './types.js';

/**
 * The reflect kind of a decoded JSON value (integers are kept as int64, as the reference keeps
 * them).
 */
function sourceKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return 'slice';
  return 'map';
}

/** Go's reflect ConvertibleTo between the kinds that can meet here: numbers, and int to string. */
function convertible(from: string, to: string): boolean {
  const numeric = (k: string): boolean => /^(int|float)/.test(k);
  return (numeric(from) && numeric(to)) || (from === 'int64' && to === 'string');
}

/** The converter's error for `v` in a field of schema `s` (a mismatch the JSON walk found). */
export function converterMismatch(v: unknown, s: Schema): string {
  const from = sourceKind(v);
  switch (s.t) {
    case 'object':
      return `cannot restore struct from: ${from}`;
    case 'map':
      return `cannot restore map from ${from}`;
    case 'array':
      return `cannot restore slice from ${from}`;
    default: {
      const to = goTypeName(s);
      return convertible(from, to) ? `cannot convert ${from} to ${to}` : `unrecognized type: ${to}`;
    }
  }
}

/** A []byte field's base64 error, as the converter wraps it. */
export function converterBase64Error(err: string): string {
  return `error decoding from json: ${err}`;
}
