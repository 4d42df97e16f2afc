// Type-aware walks over objects for field management: the field set an object sets, the
// comparison of two versions (added, modified, removed paths), the merge of an applied
// configuration into a live object, and removal of owned paths. List and map semantics come from
// meta.ts (keyed lists, sets, atomic lists; maps vs structs).

import { FieldSet, fieldPE, keyPE, valuePE, type FieldPath, type PathElement } from './fieldset.js';
import { childTypePath, isMapType, listMeta } from './meta.js';
import { setOwn } from './merge-patch.js';

type Obj = Record<string, unknown>;

export function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length &&
      ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]))
    );
  }
  return false;
}

/**
 * Adds the paths `v` sets under `path`. `memberMaps` records maps themselves (as an Update that
 * creates a map does); an applied configuration records only what it sets.
 */
function collect(
  kind: string,
  v: unknown,
  typePath: string,
  path: PathElement[],
  out: FieldSet,
  memberMaps: boolean,
): void {
  if (isObject(v)) {
    const keys = Object.keys(v);
    if (keys.length === 0) {
      if (path.length > 0) out.add(path);
      return;
    }
    const isMap = isMapType(kind, typePath);
    if (isMap && memberMaps && path.length > 0) out.add(path);
    for (const k of keys)
      collect(
        kind,
        v[k],
        childTypePath(typePath, k, isMap),
        [...path, fieldPE(k)],
        out,
        memberMaps,
      );
    return;
  }
  if (Array.isArray(v)) {
    const lm = listMeta(kind, typePath);
    if (lm.type === 'atomic' || v.length === 0) {
      out.add(path);
      return;
    }
    if (lm.type === 'set') {
      for (const item of v) out.add([...path, valuePE(item)]);
      return;
    }
    for (const item of v) {
      if (!isObject(item)) {
        out.add(path);
        return;
      }
      const ep = [...path, keyPE(item, lm.keys)];
      out.add(ep);
      for (const [k, c] of Object.entries(item))
        collect(
          kind,
          c,
          childTypePath(`${typePath}[]`, k, false),
          [...ep, fieldPE(k)],
          out,
          memberMaps,
        );
    }
    return;
  }
  out.add(path);
}

/** The field set of an applied configuration (the reference's ToFieldSet). */
export function toFieldSet(kind: string, obj: unknown): FieldSet {
  const out = new FieldSet();
  collect(kind, obj, '', [], out, false);
  return out;
}

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/** Where a comparison stands: the kind, the type path and field path of the values compared. */
interface CompareAt {
  readonly kind: string;
  readonly typePath: string;
  readonly path: PathElement[];
}

function compareAt(
  kind: string,
  a: unknown,
  b: unknown,
  typePath: string,
  path: PathElement[],
  res: Comparison,
): void {
  if (a === undefined && b === undefined) return;
  if (a === undefined) {
    collect(kind, b, typePath, path, res.added, true);
    return;
  }
  if (b === undefined) {
    collect(kind, a, typePath, path, res.removed, true);
    return;
  }
  const at: CompareAt = { kind, typePath, path };
  if (isObject(a) && isObject(b)) {
    compareMaps(at, a, b, res);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const lm = listMeta(kind, typePath);
    if (lm.type === 'set') {
      compareSets(path, a, b, res);
      return;
    }
    if (lm.type === 'map' && a.every(isObject) && b.every(isObject)) {
      compareKeyedLists(at, lm.keys, a, b, res);
      return;
    }
  }
  if (!deepEqual(a, b)) res.modified.add(path);
}

/** Two maps (or structs): each key of either, compared. */
function compareMaps(at: CompareAt, a: Obj, b: Obj, res: Comparison): void {
  const isMap = isMapType(at.kind, at.typePath);
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys)
    compareAt(
      at.kind,
      Object.hasOwn(a, k) ? a[k] : undefined,
      Object.hasOwn(b, k) ? b[k] : undefined,
      childTypePath(at.typePath, k, isMap),
      [...at.path, fieldPE(k)],
      res,
    );
}

/** Two sets of values: members only in `b` are added, only in `a` removed. */
function compareSets(
  path: PathElement[],
  a: readonly unknown[],
  b: readonly unknown[],
  res: Comparison,
): void {
  const av = new Set(a.map((x) => JSON.stringify(x)));
  const bv = new Set(b.map((x) => JSON.stringify(x)));
  for (const x of b) if (!av.has(JSON.stringify(x))) res.added.add([...path, valuePE(x)]);
  for (const x of a) if (!bv.has(JSON.stringify(x))) res.removed.add([...path, valuePE(x)]);
}

/** Two lists keyed by `keys`: items matched by key are compared field by field. */
function compareKeyedLists(
  at: CompareAt,
  keys: readonly string[],
  a: readonly Obj[],
  b: readonly Obj[],
  res: Comparison,
): void {
  const am = new Map(a.map((x) => [keyPE(x, keys), x] as const));
  const bm = new Map(b.map((x) => [keyPE(x, keys), x] as const));
  const itemType = `${at.typePath}[]`;
  for (const [pe, item] of bm) {
    const old = am.get(pe);
    if (old === undefined) collectItem(at, itemType, pe, item, res.added);
    else {
      for (const k of new Set([...Object.keys(old), ...Object.keys(item)])) {
        compareAt(
          at.kind,
          old[k],
          item[k],
          childTypePath(itemType, k, false),
          [...at.path, pe, fieldPE(k)],
          res,
        );
      }
    }
  }
  for (const [pe, item] of am) if (!bm.has(pe)) collectItem(at, itemType, pe, item, res.removed);
}

/** A whole keyed-list item (its key and every field under it) into `into`. */
function collectItem(
  at: CompareAt,
  itemType: string,
  pe: PathElement,
  item: Obj,
  into: FieldSet,
): void {
  into.add([...at.path, pe]);
  for (const [k, c] of Object.entries(item))
    collect(
      at.kind,
      c,
      childTypePath(itemType, k, false),
      [...at.path, pe, fieldPE(k)],
      into,
      true,
    );
}

/** Paths added, modified and removed from `a` to `b`. */
export function compare(kind: string, a: unknown, b: unknown): Comparison {
  const res: Comparison = {
    added: new FieldSet(),
    modified: new FieldSet(),
    removed: new FieldSet(),
  };
  compareAt(kind, a, b, '', [], res);
  return res;
}

/** Merges an applied configuration into the live object (keyed lists by key, sets by value). */
export function mergeApplied(kind: string, live: unknown, config: unknown, typePath = ''): unknown {
  if (config === undefined) return structuredClone(live);
  if (isObject(config) && isObject(live)) {
    const isMap = isMapType(kind, typePath);
    const out: Obj = structuredClone(live);
    for (const [k, v] of Object.entries(config)) {
      if (v === null) Reflect.deleteProperty(out, k);
      else
        setOwn(
          out,
          k,
          mergeApplied(
            kind,
            Object.hasOwn(live, k) ? live[k] : undefined,
            v,
            childTypePath(typePath, k, isMap),
          ),
        );
    }
    return out;
  }
  if (Array.isArray(config) && Array.isArray(live)) {
    const lm = listMeta(kind, typePath);
    if (lm.type === 'set') {
      const seen = new Set(live.map((x) => JSON.stringify(x)));
      const kept: unknown[] = structuredClone(live);
      const added: unknown[] = config.filter((x) => !seen.has(JSON.stringify(x)));
      return [...kept, ...added];
    }
    if (lm.type === 'map' && live.every(isObject) && config.every(isObject)) {
      const out: unknown[] = structuredClone(live);
      for (const item of config) {
        const pe = keyPE(item, lm.keys);
        const idx = out.findIndex((x) => isObject(x) && keyPE(x, lm.keys) === pe);
        if (idx >= 0) out[idx] = mergeApplied(kind, out[idx], item, `${typePath}[]`);
        else out.push(stripNulls(item));
      }
      return out;
    }
  }
  return stripNulls(config);
}

function stripNulls(v: unknown): unknown {
  if (isObject(v)) {
    const out: Obj = {};
    for (const [k, c] of Object.entries(v)) if (c !== null) setOwn(out, k, stripNulls(c));
    return out;
  }
  if (Array.isArray(v)) return v.map(stripNulls);
  return v;
}

/** Removes the value at `path` from `obj` (in place); a path that does not resolve is ignored. */
export function removePath(kind: string, obj: Obj, path: FieldPath): void {
  let cur: unknown = obj;
  let typePath = '';
  for (let i = 0; i < path.length; i++) {
    const pe = path[i] ?? '';
    const last = i === path.length - 1;
    if (pe.startsWith('f:')) {
      if (!isObject(cur)) return;
      const name = pe.slice(2);
      if (last) {
        Reflect.deleteProperty(cur, name);
        return;
      }
      const isMap = isMapType(kind, typePath);
      typePath = childTypePath(typePath, name, isMap);
      cur = cur[name];
    } else if (pe.startsWith('k:') || pe.startsWith('v:')) {
      if (!Array.isArray(cur)) return;
      const lm = listMeta(kind, typePath);
      const list = cur;
      const idx = list.findIndex((x) =>
        pe.startsWith('v:')
          ? valuePE(x) === pe
          : lm.type === 'map' && isObject(x) && keyPE(x, lm.keys) === pe,
      );
      if (idx < 0) return;
      if (last) {
        list.splice(idx, 1);
        return;
      }
      cur = list[idx];
      typePath = `${typePath}[]`;
    } else return;
  }
}
