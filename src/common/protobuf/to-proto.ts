// JSON → protobuf message value (the plain object protobufjs encodes), for one reference message
// type. Fields absent or null in the JSON are absent on the wire; a key the message does not
// have, or a value of the wrong JSON type, is an error naming the field path (never dropped).

import type protobuf from 'protobufjs';
import { planOf, type FieldPlan, type Special, type ValueKind } from './field-plan.js';
import { parseBase64, parseTime } from './special-values.js';

type Plain = Record<string, unknown>;
const INT32 = new Set(['int32', 'sint32', 'sfixed32']);
const UINT32 = new Set(['uint32', 'fixed32']);
const INT64 = new Set(['int64', 'sint64', 'sfixed64', 'uint64', 'fixed64']);

function isObject(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function scalar(type: string, v: unknown, path: string): unknown {
  if (type === 'string') {
    if (typeof v !== 'string') throw new Error(`${path}: expected a string`);
    return v;
  }
  if (type === 'bool') {
    if (typeof v !== 'boolean') throw new Error(`${path}: expected a boolean`);
    return v;
  }
  if (type === 'bytes') return parseBase64(v, path);
  if (type === 'double' || type === 'float') {
    if (typeof v !== 'number') throw new Error(`${path}: expected a number`);
    return v;
  }
  if (typeof v !== 'number' || !Number.isSafeInteger(v))
    throw new Error(`${path}: expected an integer`);
  if (INT32.has(type) && (v < -2147483648 || v > 2147483647))
    throw new Error(`${path}: ${v} is outside the int32 range`);
  if (UINT32.has(type) && (v < 0 || v > 4294967295))
    throw new Error(`${path}: ${v} is outside the uint32 range`);
  if (!INT64.has(type) && !INT32.has(type) && !UINT32.has(type))
    throw new Error(`${path}: unsupported protobuf type ${type}`);
  return v;
}

function special(kind: Special, v: unknown, path: string): Plain {
  switch (kind) {
    case 'time': {
      // The reference writes seconds only (time_proto.go), and nanos as its zero value.
      return { seconds: parseTime(v, path).seconds, nanos: 0 };
    }
    case 'microtime': {
      const t = parseTime(v, path);
      return { seconds: t.seconds, nanos: Math.floor(t.nanos / 1000) * 1000 };
    }
    case 'quantity':
      if (typeof v === 'number' && Number.isFinite(v)) return { string: String(v) };
      if (typeof v !== 'string') throw new Error(`${path}: expected a quantity string`);
      return { string: v };
    case 'intorstring':
      if (typeof v === 'string') return { type: 1, intVal: 0, strVal: v };
      return { type: 0, intVal: scalar('int32', v, path), strVal: '' };
    case 'rawextension':
      return { raw: Buffer.from(JSON.stringify(v), 'utf8') };
    case 'fieldsv1':
      if (!isObject(v)) throw new Error(`${path}: expected an object`);
      return { Raw: Buffer.from(JSON.stringify(v), 'utf8') };
    case 'stringlist':
      if (!Array.isArray(v)) throw new Error(`${path}: expected an array of strings`);
      return { items: v.map((s, i) => scalar('string', s, `${path}[${i}]`)) };
    case 'duration':
      throw new Error(`${path}: Duration fields are not served`);
  }
}

function value(k: ValueKind, v: unknown, path: string): unknown {
  if ('scalar' in k) return scalar(k.scalar, v, path);
  if ('special' in k) return special(k.special, v, path);
  return toProtoValue(k.message, v, path);
}

function fieldValue(f: FieldPlan, v: unknown, path: string): unknown {
  if (f.map) {
    if (!isObject(v)) throw new Error(`${path}: expected an object`);
    const out: Plain = {};
    // The reference's marshaller writes map entries sorted by key.
    for (const key of Object.keys(v).sort()) {
      const item = v[key];
      if (item !== null) out[key] = value(f.value, item, `${path}[${JSON.stringify(key)}]`);
    }
    return out;
  }
  if (f.repeated) {
    if (!Array.isArray(v)) throw new Error(`${path}: expected an array`);
    return v.map((item, i) => value(f.value, item, `${path}[${i}]`));
  }
  return value(f.value, v, path);
}

function fill(t: protobuf.Type, json: Plain, path: string, out: Plain): void {
  const plan = planOf(t);
  // The JSON's keys, not the message's fields: objects are sparse.
  for (const key of Object.keys(json)) {
    const f = plan.byJsonName.get(key);
    const v = json[key];
    if (f === undefined || v === undefined || v === null) continue;
    out[f.protoName] = fieldValue(f, v, path === '' ? key : `${path}.${key}`);
  }
  for (const f of plan.inlined) {
    if (!('message' in f.value)) continue;
    const inner: Plain = {};
    fill(f.value.message, json, path, inner);
    if (Object.keys(inner).length > 0) out[f.protoName] = inner;
  }
}

/**
 * The protobufjs value of `json` as message `t`. The TypeMeta keys (apiVersion, kind) are taken
 * at the top and on every kind (a message with `metadata`: list items carry them in JSON); the
 * reference's protobuf carries them in the envelope only.
 */
export function toProtoValue(
  t: protobuf.Type,
  json: unknown,
  path: string,
  topLevel = false,
): Plain {
  if (!isObject(json)) throw new Error(`${path === '' ? 'the object' : path}: expected an object`);
  const keys = planOf(t).jsonKeys;
  const typeMeta = topLevel || keys.has('metadata');
  for (const k of Object.keys(json)) {
    if (keys.has(k) || (typeMeta && (k === 'apiVersion' || k === 'kind'))) continue;
    throw new Error(
      `${path === '' ? '' : `${path}.`}${k}: not a field of ${t.name} in the ` +
        `reference's protobuf schema`,
    );
  }
  const out: Plain = {};
  fill(t, json, path, out);
  return out;
}
