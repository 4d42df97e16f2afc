// The JSON values the generated readers (reader-codegen.ts) store: numbers JSON carries exactly,
// base64 bytes, omitempty strings, the special types' JSON forms (Time, MicroTime, Quantity,
// IntOrString, RawExtension, FieldsV1, string lists), and the field path an error names.
// Fields absent on the wire are absent in the JSON; an empty string or empty bytes of a
// `+optional` field is left out as Go's `omitempty` leaves it out, and so are empty lists and
// maps (Go's nil); numbers and booleans are kept (pointer fields such as gracePeriodSeconds or
// runAsUser mean something at 0/false); Go's zero Time is left out (JSON null).

import type protobuf from 'protobufjs';
import type { FieldPlan, Special } from './field-plan.js';
import { formatMicroTime, formatTime, parseRawJsonText } from './special-values.js';

export type Plain = Record<string, unknown>;
/** Reads a RawExtension's bytes (JSON, or an embedded `k8s\0` protobuf object). */
export type RawReader = (raw: Uint8Array, path: string) => unknown;
/** A generated reader: the fields of one message, from r.pos to end, stored into `out`. */
export type MessageReader = (
  r: protobuf.Reader,
  end: number,
  depth: number,
  raw: RawReader,
  out: Plain,
) => Plain;

/** A value left out of the JSON (omitempty, Go's zero time). */
export const OMIT = Symbol('omit');
/** Nested messages deeper than this are refused (protobufjs's own limit for skipped groups). */
export const MAX_DEPTH = 100;
export const PACKABLE: ReadonlySet<string> = new Set([
  'double',
  'float',
  'int32',
  'uint32',
  'sint32',
  'fixed32',
  'sfixed32',
  'int64',
  'uint64',
  'sint64',
  'fixed64',
  'sfixed64',
  'bool',
]);

/** An error inside a message, with the path of fields it was read in (innermost first). */
export class FieldPathError extends Error {
  override readonly name = 'FieldPathError';
  readonly segments: string[] = [];
  constructor(readonly reason: string) {
    super(reason);
  }

  /** `metadata.managedFields[0].time: <reason>`. */
  describe(): string {
    const path = this.segments.slice().reverse().join('').replace(/^\./, '');
    return path === '' ? this.reason : `${path}: ${this.reason}`;
  }
}

/** Adds the field (and list index) an error was read in to its path. */
export function at(
  err: unknown,
  f: FieldPlan | undefined,
  list: unknown[] | undefined,
): FieldPathError {
  const e =
    err instanceof FieldPathError
      ? err
      : new FieldPathError(err instanceof Error ? err.message : String(err));
  if (f === undefined || f.inline) return e;
  if (list !== undefined && !f.map) e.segments.push(`[${String(list.length)}]`);
  e.segments.push(`.${f.jsonName}`);
  return e;
}

export function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'object' && v !== null && 'toNumber' in v && typeof v.toNumber === 'function') {
    const n = (v as { toNumber: () => number }).toNumber();
    if (!Number.isSafeInteger(n))
      throw new Error(`${String(n)} is beyond the integers JSON numbers carry exactly`);
    return n;
  }
  throw new Error('expected a number');
}

export function b64(b: Uint8Array, omitempty: boolean): string | typeof OMIT {
  return omitempty && b.length === 0
    ? OMIT
    : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
}

/**
 * A string field. Most are short ASCII (names, kinds, reasons): those are built here, which
 * costs less than a native UTF-8 decode call below 13 bytes (V8 keeps such strings flat); the
 * rest, and anything not ASCII, is protobufjs's read (a native decode).
 */
export function str(r: protobuf.Reader): string {
  const start = r.pos;
  const len = r.uint32();
  const from = r.pos;
  const e = from + len;
  // protobufjs's read would cut a string running past the end short; that is a malformed message.
  if (e > r.len)
    throw new RangeError(`index out of range: ${String(from)} + ${String(len)} > ${String(r.len)}`);
  if (len < 13) {
    const buf = r.buf;
    let s = '';
    let i = from;
    for (; i < e; i++) {
      const c = buf[i] ?? 0x80;
      if (c >= 0x80) break;
      s += String.fromCharCode(c);
    }
    if (i === e) {
      r.pos = e;
      return s;
    }
  }
  r.pos = start;
  return r.string();
}

export function optString(r: protobuf.Reader): string | typeof OMIT {
  const v = str(r);
  return v === '' ? OMIT : v;
}

/** The end of a length-delimited value that starts at r.pos. */
export function end(r: protobuf.Reader): number {
  const len = r.uint32();
  const e = r.pos + len;
  if (e > r.len)
    throw new RangeError(
      `index out of range: ${String(r.pos)} + ${String(len)} > ${String(r.len)}`,
    );
  return e;
}

export function notMessage(): Error {
  return new Error('expected a message');
}

export function hasKeys(o: Plain): boolean {
  for (const _ in o) return true;
  return false;
}

function timeOf(m: Plain): { seconds: number; nanos: number } {
  return {
    seconds: typeof m['seconds'] === 'number' ? m['seconds'] : 0,
    nanos: typeof m['nanos'] === 'number' ? m['nanos'] : 0,
  };
}

/** The JSON of a special type from its fields (by proto name, as the plain reader reads them). */
export function specialValue(k: Special, m: Plain, raw: RawReader): unknown {
  switch (k) {
    case 'time':
      return formatTime(timeOf(m), 'the time') ?? OMIT;
    case 'microtime':
      return formatMicroTime(timeOf(m), 'the time') ?? OMIT;
    case 'quantity':
      return typeof m['string'] === 'string' && m['string'] !== '' ? m['string'] : OMIT;
    case 'intorstring':
      return m['type'] === 1
        ? (m['strVal'] ?? '')
        : typeof m['intVal'] === 'number'
          ? m['intVal']
          : 0;
    case 'rawextension': {
      const b = m['raw'] instanceof Uint8Array ? m['raw'] : new Uint8Array(0);
      return b.length === 0 ? OMIT : raw(b, 'the embedded object');
    }
    case 'fieldsv1': {
      // Its bytes are always JSON text: the plain reader reads them as a string (fieldsV1Text).
      const text = typeof m['Raw'] === 'string' ? m['Raw'] : '';
      return text === '' ? OMIT : parseRawJsonText(text, 'the fieldsV1 JSON');
    }
    case 'stringlist':
      return Array.isArray(m['items']) ? m['items'] : [];
    case 'duration':
      throw new Error('Duration fields are not served');
  }
}
