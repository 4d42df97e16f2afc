// The value rules of the schema table (kinds.ts), applied to every object the registry writes:
// int32/int64 fields must hold an integer in range, Time and MicroTime fields must parse as the
// reference parses them and are rewritten to the form it stores (UTC `Z`, whole seconds for
// Time, microseconds for MicroTime, null for the zero time). The decoder reports the same errors
// for request bodies; this pass also covers patches, apply, protobuf bodies and controllers.

import { normalizeTime } from './go-time.js';
import { schemaForKind } from './kinds.js';
import { objectMeta } from './meta.js';
import { openObj, type Schema } from './types.js';
import { isRecord } from '../../common/util/json-shape.js';

/** A kind without an entry in kinds.ts still gets the rules of its ObjectMeta. */
const metadataOnly = openObj('', { metadata: objectMeta });

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_LIMIT = 2 ** 63;

function jsonTypeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v;
}

function joinPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

/** Whether a JSON number fits the Go integer type. */
export function fitsInt(v: number, bits: 32 | 64): boolean {
  if (!Number.isInteger(v)) return false;
  return bits === 32 ? v >= INT32_MIN && v <= INT32_MAX : v >= -INT64_LIMIT && v < INT64_LIMIT;
}

/** encoding/json's error for a number that does not fit an integer field. */
export function intMismatch(v: unknown, bits: 32 | 64, owner: string, path: string): string {
  const what = typeof v === 'number' ? `number ${String(v)}` : jsonTypeOf(v);
  return `json: cannot unmarshal ${what} into Go struct field ${owner}.${path} of type int${bits}`;
}

/** A time field's value: the stored form, or the reference's error (metav1.Time.UnmarshalJSON). */
export function timeLeaf(
  v: unknown,
  kind: 'Time' | 'MicroTime',
): { value: string | null } | { error: string } {
  if (typeof v !== 'string')
    return { error: `json: cannot unmarshal ${jsonTypeOf(v)} into Go value of type string` };
  const r = normalizeTime(kind, v);
  return r.ok ? { value: r.value } : { error: r.message };
}

interface NormalizeState {
  error: string | undefined;
}

function normalizeChildren(
  v: unknown,
  s: Schema,
  path: string,
  owner: string,
  st: NormalizeState,
): void {
  if (s.t === 'array' && Array.isArray(v)) {
    const list: unknown[] = v;
    list.forEach((item, i) => normalizeInto(list, i, item, s.items, `${path}[${i}]`, owner, st));
  } else if (s.t === 'map' && isRecord(v)) {
    for (const [k, child] of Object.entries(v))
      normalizeInto(v, k, child, s.values, joinPath(path, k), owner, st);
  } else if (s.t === 'object' && isRecord(v)) {
    const rec = v;
    const childOwner = s.name.replace(/^v1\./, '');
    for (const [k, child] of Object.entries(rec)) {
      const fs = s.fields[k];
      if (fs !== undefined) normalizeInto(rec, k, child, fs, joinPath(path, k), childOwner, st);
    }
  }
}

function normalizeInto(
  parent: Record<string, unknown> | unknown[],
  key: string | number,
  v: unknown,
  s: Schema,
  path: string,
  owner: string,
  st: NormalizeState,
): void {
  if (st.error !== undefined || v === null || v === undefined) return;
  if (s.t === 'int') {
    if (typeof v !== 'number' || !fitsInt(v, s.bits))
      st.error = intMismatch(v, s.bits, owner, path);
    return;
  }
  if (s.t === 'time') {
    const r = timeLeaf(v, s.kind);
    if ('error' in r) st.error = r.error;
    else Reflect.set(parent, key, r.value);
    return;
  }
  normalizeChildren(v, s, path, owner, st);
}

/**
 * Rewrites the Time and MicroTime fields of `obj` (a `kind`) in place to their stored form and
 * checks its integer fields; returns the first problem in the reference's words, or undefined.
 * A kind without a schema entry has only its metadata checked.
 */
export function normalizeValues(obj: Record<string, unknown>, kind: string): string | undefined {
  const schema = schemaForKind(kind, obj['apiVersion']) ?? metadataOnly;
  const st: NormalizeState = { error: undefined };
  normalizeChildren(obj, schema, '', kind, st);
  return st.error;
}
