// Merging layers of configuration: the file over the defaults, drop-ins as JSON merge patches
// (RFC 7386), and single fields set by flags.

export type JsonObject = Record<string, unknown>;

import { isPlainObject, mergePatch } from '../../common/util/merge-patch.js';

export { isPlainObject, mergePatch };

function clone<T>(v: T): T {
  return structuredClone(v);
}

/**
 * Lays a decoded config file over the defaults the way the reference decodes into a defaulted
 * structure: nested structures merge field by field, while a map-valued field (string map,
 * feature gates, eviction thresholds) or a list given in the file replaces the default whole.
 * `isMapField(path)` says which dotted paths are maps.
 */
export function overlayFile(
  defaults: JsonObject,
  file: JsonObject,
  isMapField: (path: string) => boolean,
  prefix = '',
): JsonObject {
  const out: JsonObject = { ...defaults };
  for (const [k, v] of Object.entries(file)) {
    const path = prefix === '' ? k : `${prefix}.${k}`;
    if (v === null || v === undefined) continue; // null in a file means "not set": keep the default
    const d = out[k];
    if (isPlainObject(v) && isPlainObject(d) && !isMapField(path))
      out[k] = overlayFile(d, v, isMapField, path);
    else out[k] = clone(v);
  }
  return out;
}

/** Sets `obj.a.b.c = value` for path `a.b.c`, creating objects on the way. */
export function setPath(obj: JsonObject, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur: JsonObject = obj;
  for (const p of parts.slice(0, -1)) {
    const next = cur[p];
    if (isPlainObject(next)) cur = next;
    else {
      const created: JsonObject = {};
      cur[p] = created;
      cur = created;
    }
  }
  cur[parts[parts.length - 1] ?? path] = clone(value);
}

export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const p of path.split('.')) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}
