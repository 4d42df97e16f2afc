// A fast structural pre-check of a decoded config document against the published JSON Schema
// (schema/nodeagent-config.schema.json, generated from the zod schema and kept in step by a
// test). Loading zod costs more start-up time than the rest of configuration loading together,
// so the loader asks this check first and imports zod only when a document has a problem, to
// produce the exact messages. It understands the subset of JSON Schema that z.toJSONSchema
// emits for our schema: type, properties, required, additionalProperties, items, integer bounds.
// A test runs it side by side with zod over random documents to keep the two in agreement.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInfo } from '../../common/build-info.js';

export interface ShapeSchema {
  type?: string | string[];
  properties?: Record<string, ShapeSchema>;
  required?: string[];
  additionalProperties?: boolean | ShapeSchema;
  items?: ShapeSchema;
  minimum?: number;
  maximum?: number;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeOk(t: string, v: unknown, s: ShapeSchema): boolean {
  switch (t) {
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return (
        typeof v === 'number' &&
        Number.isSafeInteger(v) &&
        (s.minimum === undefined || v >= s.minimum) &&
        (s.maximum === undefined || v <= s.maximum)
      );
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isObject(v);
    case 'null':
      return v === null;
    default:
      return false;
  }
}

/**
 * True when `value` satisfies `schema`; false at the first problem (no messages: zod gives them).
 */
export function shapeOk(schema: ShapeSchema, value: unknown): boolean {
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeOk(t, value, schema))) return false;
  }
  if (Array.isArray(value)) {
    if (schema.items !== undefined)
      return value.every((x) => shapeOk(schema.items as ShapeSchema, x));
    return true;
  }
  if (!isObject(value)) return true;
  for (const r of schema.required ?? []) if (!Object.hasOwn(value, r)) return false;
  const props = schema.properties ?? {};
  for (const [k, v] of Object.entries(value)) {
    const p = Object.hasOwn(props, k) ? props[k] : undefined;
    if (p !== undefined) {
      if (!shapeOk(p, v)) return false;
    } else if (schema.additionalProperties === false) {
      return false;
    } else if (isObject(schema.additionalProperties)) {
      if (!shapeOk(schema.additionalProperties, v)) return false;
    }
  }
  return true;
}

// The schema read by the first call (null: not read yet); only read, never changed.
let loaded: ShapeSchema | undefined | null = null;

/** The published schema, read once per process; undefined when it cannot be found. */
export function loadShapeSchema(): ShapeSchema | undefined {
  if (loaded === null) loaded = readShapeSchema();
  return loaded;
}

function readShapeSchema(): ShapeSchema | undefined {
  const fixed = buildInfo()?.configSchema;
  if (fixed !== undefined) return fixed as ShapeSchema;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      return JSON.parse(
        readFileSync(join(dir, 'schema', 'nodeagent-config.schema.json'), 'utf8'),
      ) as ShapeSchema;
    } catch {
      dir = dirname(dir);
    }
  }
  return undefined;
}

/** Dotted paths of map-valued fields (objects with no fixed properties), from the schema. */
export function mapPathsOf(schema: ShapeSchema, prefix = '', out = new Set<string>()): Set<string> {
  for (const [k, v] of Object.entries(schema.properties ?? {})) {
    const path = prefix === '' ? k : `${prefix}.${k}`;
    if (v.properties !== undefined) mapPathsOf(v, path, out);
    else if (v.type === 'object' || (Array.isArray(v.type) && v.type.includes('object')))
      out.add(path);
  }
  return out;
}
