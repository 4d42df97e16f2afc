// Protobuf message bytes → JSON in one pass: protobufjs's Reader walks the wire and each field
// is written straight into its JSON form by the message's field plan (field-plan.ts). Fields
// absent on the wire are absent in the JSON; an empty string or empty bytes of a `+optional`
// field is left out as Go's `omitempty` leaves it out, and so are empty lists and maps (Go's
// nil); numbers and booleans are kept (pointer fields such as gracePeriodSeconds or runAsUser
// mean something at 0/false); Go's zero Time is left out (JSON null); the special types take
// their JSON forms (special-values.ts); inlined structs read into their parent; a list's
// `items` is always present. (Decoding into protobufjs message objects first and converting
// them after built every object twice.)

import protobuf from 'protobufjs';
import { planOf, type FieldPlan, type ValueKind } from './field-plan.js';
import { formatMicroTime, formatTime, parseRawJson } from './special-values.js';

type Plain = Record<string, unknown>;

/** Reads a RawExtension's bytes (JSON, or an embedded `k8s\0` protobuf object). */
export type RawReader = (raw: Uint8Array, path: string) => unknown;
type Reader = protobuf.Reader;
const OMIT = Symbol('omit');
/** Nested messages deeper than this are refused (protobufjs's own limit for skipped groups). */
const MAX_DEPTH = 100;

const byIdCache = new WeakMap<protobuf.Type, ReadonlyMap<number, FieldPlan>>();

function fieldsById(t: protobuf.Type): ReadonlyMap<number, FieldPlan> {
  let m = byIdCache.get(t);
  if (m === undefined) {
    m = new Map(planOf(t).fields.map((f) => [f.id, f]));
    byIdCache.set(t, m);
  }
  return m;
}

/** protobufjs's 64-bit integers (a Long, or its own LongBits when long.js is absent). */
function isLong(v: unknown): v is { toNumber: () => number } {
  return typeof v === 'object' && v !== null && 'toNumber' in v && typeof v.toNumber === 'function';
}

function safeNumber(v: unknown, path: string): number {
  if (typeof v === 'number') return v;
  if (isLong(v)) {
    const n = v.toNumber();
    if (!Number.isSafeInteger(n)) throw new Error(`${path}: ${n} is beyond the integers JSON numbers carry exactly`);
    return n;
  }
  throw new Error(`${path}: expected a number`);
}

type ScalarRead = (r: Reader) => unknown;
const SCALARS: Readonly<Record<string, ScalarRead>> = {
  string: (r) => r.string(),
  bool: (r) => r.bool(),
  bytes: (r) => r.bytes(),
  double: (r) => r.double(),
  float: (r) => r.float(),
  int32: (r) => r.int32(),
  uint32: (r) => r.uint32(),
  sint32: (r) => r.sint32(),
  fixed32: (r) => r.fixed32(),
  sfixed32: (r) => r.sfixed32(),
  int64: (r) => r.int64(),
  uint64: (r) => r.uint64(),
  sint64: (r) => r.sint64(),
  fixed64: (r) => r.fixed64(),
  sfixed64: (r) => r.sfixed64(),
};

function readScalar(type: string, r: Reader, omitempty: boolean, path: string): unknown {
  const read = SCALARS[type];
  if (read === undefined) throw new Error(`${path}: unsupported protobuf type ${type}`);
  const v = read(r);
  if (type === 'string') return omitempty && v === '' ? OMIT : v;
  if (type === 'bool' || type === 'double' || type === 'float') return v;
  if (type === 'bytes' && v instanceof Uint8Array) {
    return omitempty && v.length === 0 ? OMIT : Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
  }
  return safeNumber(v, path);
}

/** A message's fields as protobufjs would decode them (last one wins), for the special types. */
function readPlain(t: protobuf.Type, r: Reader, end: number, path: string, depth: number): Plain {
  const out: Plain = {};
  const ids = fieldsById(t);
  while (r.pos < end) {
    const tag = r.uint32();
    const f = ids.get(tag >>> 3);
    if (f === undefined || !('scalar' in f.value)) {
      r.skipType(tag & 7, depth);
      continue;
    }
    const v = SCALARS[f.value.scalar]?.(r);
    const list = out[f.protoName];
    if (!f.repeated) out[f.protoName] = v;
    else if (Array.isArray(list)) list.push(v);
    else out[f.protoName] = [v];
  }
  return out;
}

function timeOf(m: Plain, path: string): { seconds: number; nanos: number } {
  return { seconds: m['seconds'] === undefined ? 0 : safeNumber(m['seconds'], path), nanos: m['nanos'] === undefined ? 0 : safeNumber(m['nanos'], path) };
}

function readSpecial(k: Extract<ValueKind, { special: unknown }>['special'], t: protobuf.Type, r: Reader, end: number, path: string, raw: RawReader, depth: number): unknown {
  const m = readPlain(t, r, end, path, depth);
  switch (k) {
    case 'time':
      return formatTime(timeOf(m, path), path) ?? OMIT;
    case 'microtime':
      return formatMicroTime(timeOf(m, path), path) ?? OMIT;
    case 'quantity':
      return typeof m['string'] === 'string' && m['string'] !== '' ? m['string'] : OMIT;
    case 'intorstring':
      return m['type'] !== undefined && safeNumber(m['type'], path) === 1 ? (m['strVal'] ?? '') : m['intVal'] !== undefined ? safeNumber(m['intVal'], path) : 0;
    case 'rawextension': {
      const b = m['raw'] instanceof Uint8Array ? m['raw'] : new Uint8Array(0);
      return b.length === 0 ? OMIT : raw(b, path);
    }
    case 'fieldsv1': {
      const b = m['Raw'] instanceof Uint8Array ? m['Raw'] : new Uint8Array(0);
      return b.length === 0 ? OMIT : parseRawJson(b, path);
    }
    case 'stringlist':
      return Array.isArray(m['items']) ? m['items'] : [];
    case 'duration':
      throw new Error(`${path}: Duration fields are not served`);
  }
}

/** One value of a field (a map's value, a list's item, or a singular field). */
function readValue(f: FieldPlan, wireType: number, r: Reader, omitempty: boolean, path: string, raw: RawReader, depth: number): unknown {
  const k = f.value;
  if ('scalar' in k) return readScalar(k.scalar, r, omitempty, path);
  const t = f.messageType;
  if (wireType !== 2 || t === undefined) throw new Error(`${path}: expected a message`);
  if (depth >= MAX_DEPTH) throw new Error(`${path}: messages nested more than ${MAX_DEPTH} deep`);
  const end = messageEnd(r, path);
  if ('special' in k) return readSpecial(k.special, t, r, end, path, raw, depth + 1);
  const out: Plain = {};
  readInto(t, r, end, path, raw, out, depth + 1);
  return out;
}

function messageEnd(r: Reader, path: string): number {
  const len = r.uint32();
  const end = r.pos + len;
  if (end > r.len) throw new RangeError(`${path}: index out of range: ${r.pos} + ${len} > ${r.len}`);
  return end;
}

/** A map entry {key = 1, value = 2}; the key is a string in every reference message. */
function readMapEntry(f: FieldPlan, r: Reader, path: string, raw: RawReader, depth: number, into: Plain): void {
  const end = messageEnd(r, path);
  let key = '';
  let value: unknown = OMIT;
  let seen = false;
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag >>> 3 === 1) key = r.string();
    else if (tag >>> 3 === 2) {
      value = readValue(f, tag & 7, r, false, `${path}[${JSON.stringify(key)}]`, raw, depth + 1);
      seen = true;
    } else r.skipType(tag & 7, depth);
  }
  if (!seen) {
    // protobufjs's defaults for an entry without a value: '' for strings, empty bytes, else no message.
    if ('scalar' in f.value && f.value.scalar === 'string') value = '';
    else if ('scalar' in f.value && f.value.scalar === 'bytes') value = '';
    else if ('scalar' in f.value) value = 0;
    else throw new Error(`${path}[${JSON.stringify(key)}]: expected a message`);
  }
  into[key] = value === OMIT ? ('scalar' in f.value && f.value.scalar === 'string' ? '' : null) : value;
}

const PACKABLE = new Set(['double', 'float', 'int32', 'uint32', 'sint32', 'fixed32', 'sfixed32', 'int64', 'uint64', 'sint64', 'fixed64', 'sfixed64', 'bool']);

function readRepeated(f: FieldPlan, wireType: number, r: Reader, path: string, raw: RawReader, depth: number, list: unknown[]): void {
  if (wireType === 2 && 'scalar' in f.value && PACKABLE.has(f.value.scalar)) {
    // Packed: one length-delimited run of values.
    const end = messageEnd(r, path);
    while (r.pos < end) list.push(readScalar(f.value.scalar, r, false, `${path}[${list.length}]`));
    return;
  }
  const x = readValue(f, wireType, r, false, `${path}[${list.length}]`, raw, depth);
  list.push(x === OMIT ? null : x);
}

/** Reads a message's fields into `out` (an inlined struct reads into its parent's object). */
function readInto(t: protobuf.Type, r: Reader, end: number, path: string, raw: RawReader, out: Plain, depth: number): void {
  const ids = fieldsById(t);
  // Lists and maps are gathered here and set at the end: empty ones are Go's nil, left out.
  let many: Map<FieldPlan, unknown[] | Plain> | undefined;
  while (r.pos < end) {
    const tag = r.uint32();
    const wireType = tag & 7;
    const f = ids.get(tag >>> 3);
    if (f === undefined) {
      r.skipType(wireType, depth);
      continue;
    }
    const p = path === '' ? f.jsonName : `${path}.${f.jsonName}`;
    if (f.map || f.repeated) {
      many ??= new Map();
      let acc = many.get(f);
      if (acc === undefined) many.set(f, (acc = f.map ? {} : []));
      if (Array.isArray(acc)) readRepeated(f, wireType, r, p, raw, depth, acc);
      else readMapEntry(f, r, p, raw, depth, acc);
    } else if (f.inline && f.messageType !== undefined && wireType === 2) {
      readInto(f.messageType, r, messageEnd(r, p), path, raw, out, depth + 1);
    } else {
      const x = readValue(f, wireType, r, f.omitempty, p, raw, depth);
      if (x === OMIT) Reflect.deleteProperty(out, f.jsonName);
      else out[f.jsonName] = x;
    }
  }
  if (many === undefined) return;
  for (const [f, acc] of many) if (Array.isArray(acc) ? acc.length > 0 : Object.keys(acc).length > 0) out[f.jsonName] = acc;
}

/** The JSON of message `t` from its bytes. Throws on malformed bytes or values JSON cannot carry. */
export function readJson(t: protobuf.Type, bytes: Uint8Array, raw: RawReader): Plain {
  const r = protobuf.Reader.create(bytes);
  const out: Plain = {};
  readInto(t, r, r.len, '', raw, out, 0);
  // A list's `items` has no omitempty: the reference's JSON of an empty list carries "items": [].
  if (t.name.endsWith('List') && planOf(t).byProtoName.has('items') && out['items'] === undefined) out['items'] = [];
  return out;
}
