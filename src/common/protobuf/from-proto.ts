// Protobuf message (as protobufjs decodes it) → JSON, for one reference message type. Fields
// absent on the wire are absent in the JSON; an empty string or empty bytes of a `+optional`
// field is left out as Go's `omitempty` leaves it out, and so are empty lists and maps (Go's nil); numbers and booleans are kept (pointer
// fields such as gracePeriodSeconds or runAsUser mean something at 0/false); Go's zero Time is
// left out (JSON null).

import type protobuf from 'protobufjs';
import { planOf, type FieldPlan, type Special, type ValueKind } from './field-plan.js';
import { formatMicroTime, formatTime, parseRawJson } from './special-values.js';

type Plain = Record<string, unknown>;

/** Reads a RawExtension's bytes (JSON, or an embedded `k8s\0` protobuf object). */
export type RawReader = (raw: Uint8Array, path: string) => unknown;

const OMIT = Symbol('omit');

function has(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

function num(v: unknown, path: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'object' && v !== null && 'toNumber' in v && typeof v.toNumber === 'function') {
    const n = (v as { toNumber: () => number }).toNumber();
    if (!Number.isSafeInteger(n)) throw new Error(`${path}: ${n} is beyond the integers JSON numbers carry exactly`);
    return n;
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  throw new Error(`${path}: expected a number`);
}

function bytesOf(v: unknown): Uint8Array {
  return v instanceof Uint8Array ? v : new Uint8Array(0);
}

function scalar(type: string, v: unknown, f: FieldPlan | undefined, path: string): unknown {
  if (type === 'string') return f?.omitempty === true && v === '' ? OMIT : v;
  if (type === 'bool') return v;
  if (type === 'bytes') {
    const b = bytesOf(v);
    return f?.omitempty === true && b.length === 0 ? OMIT : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
  }
  if (type === 'double' || type === 'float') return v;
  return num(v, path);
}

function special(kind: Special, m: Plain, path: string, raw: RawReader): unknown {
  switch (kind) {
    case 'time':
      return formatTime({ seconds: has(m, 'seconds') ? num(m['seconds'], path) : 0, nanos: has(m, 'nanos') ? num(m['nanos'], path) : 0 }, path) ?? OMIT;
    case 'microtime':
      return formatMicroTime({ seconds: has(m, 'seconds') ? num(m['seconds'], path) : 0, nanos: has(m, 'nanos') ? num(m['nanos'], path) : 0 }, path) ?? OMIT;
    case 'quantity':
      return has(m, 'string') && m['string'] !== '' ? m['string'] : OMIT;
    case 'intorstring':
      return has(m, 'type') && num(m['type'], path) === 1 ? (has(m, 'strVal') ? m['strVal'] : '') : has(m, 'intVal') ? num(m['intVal'], path) : 0;
    case 'rawextension': {
      const b = bytesOf(m['raw']);
      return b.length === 0 ? OMIT : raw(b, path);
    }
    case 'fieldsv1': {
      const b = bytesOf(m['Raw']);
      return b.length === 0 ? OMIT : parseRawJson(b, path);
    }
    case 'stringlist':
      return Array.isArray(m['items']) ? m['items'] : [];
    case 'duration':
      throw new Error(`${path}: Duration fields are not served`);
  }
}

function value(k: ValueKind, v: unknown, f: FieldPlan | undefined, path: string, raw: RawReader): unknown {
  if ('scalar' in k) return scalar(k.scalar, v, f, path);
  if (typeof v !== 'object' || v === null) throw new Error(`${path}: expected a message`);
  if ('special' in k) return special(k.special, v as Plain, path, raw);
  return fromProtoValue(k.message, v, path, raw);
}

function fieldValue(f: FieldPlan, v: unknown, path: string, raw: RawReader): unknown {
  if (f.map) {
    // protobufjs gives every map field an object; an empty map is what Go leaves out (nil).
    const entries = Object.entries(v as Plain);
    if (entries.length === 0) return OMIT;
    const out: Plain = {};
    for (const [key, item] of entries) {
      const x = value(f.value, item, undefined, `${path}[${JSON.stringify(key)}]`, raw);
      out[key] = x === OMIT ? (('scalar' in f.value && f.value.scalar === 'string') ? '' : null) : x;
    }
    return out;
  }
  if (f.repeated) {
    const list = v as unknown[];
    if (list.length === 0) return OMIT;
    return list.map((item, i) => {
      const x = value(f.value, item, undefined, `${path}[${i}]`, raw);
      return x === OMIT ? null : x;
    });
  }
  return value(f.value, v, f, path, raw);
}

function fill(t: protobuf.Type, m: object, path: string, raw: RawReader, out: Plain): void {
  const plan = planOf(t);
  // A decoded message owns exactly the fields on the wire (and its lists and maps).
  for (const key of Object.keys(m)) {
    const f = plan.byProtoName.get(key);
    if (f === undefined) continue;
    const v = (m as Plain)[key];
    if (v === undefined || v === null) continue;
    const p = path === '' ? f.jsonName : `${path}.${f.jsonName}`;
    if (f.inline && 'message' in f.value) {
      fill(f.value.message, v, path, raw, out);
      continue;
    }
    const x = fieldValue(f, v, p, raw);
    if (x !== OMIT) out[f.jsonName] = x;
  }
}

export function fromProtoValue(t: protobuf.Type, m: object, path: string, raw: RawReader): Plain {
  const out: Plain = {};
  fill(t, m, path, raw, out);
  // A list's `items` has no omitempty: the reference's JSON of an empty list carries "items": [],
  // and clients iterate it.
  if (path === '' && t.name.endsWith('List') && planOf(t).byProtoName.has('items') && out['items'] === undefined) out['items'] = [];
  return out;
}
