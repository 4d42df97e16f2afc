// Strategic merge patch for the built-in kinds: like a JSON merge patch, except that lists with a
// merge key (containers by name, conditions by type, ...) merge element by element and sets of
// primitives (finalizers) merge as unions. Directives: `$patch: replace|delete|merge` (on a map or
// as a list element), `$retainKeys`, `$deleteFromPrimitiveList/<field>`,
// `$setElementOrder/<field>`.

import { textOf } from '../../common/util/text-of.js';
import { badRequest } from './errors.js';
import { childTypePath, isMapType, smpListMeta } from './meta.js';
import { setOwn } from './merge-patch.js';

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const DELETE = Symbol('delete');

function checkPatchDirective(v: unknown): 'replace' | 'delete' | 'merge' | undefined {
  if (v === undefined) return undefined;
  if (v === 'replace' || v === 'delete' || v === 'merge') return v;
  throw badRequest(`Unknown patch type: ${textOf(v)}`);
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return stripListDirectives(v);
  return isObject(v) ? stripMapDirectives(v) : v;
}

/** A list without its directive-only elements (`{$patch: ...}`), each element stripped. */
function stripListDirectives(v: readonly unknown[]): unknown[] {
  return v
    .filter((x) => !(isObject(x) && x['$patch'] !== undefined && Object.keys(x).length === 1))
    .map(stripDirectives);
}

/** A map without its `$` keys and null values, each value stripped. */
function stripMapDirectives(v: Obj): Obj {
  const out: Obj = {};
  for (const [k, c] of Object.entries(v)) {
    if (k.startsWith('$')) continue;
    if (c === null) continue;
    setOwn(out, k, stripDirectives(c));
  }
  return out;
}

function mergeMap(kind: string, original: Obj, patch: Obj, typePath: string): Obj | typeof DELETE {
  const directive = checkPatchDirective(patch['$patch']);
  if (directive === 'delete') return DELETE;
  if (directive === 'replace') return stripMapDirectives(patch);
  const isMap = isMapType(kind, typePath);
  const out: Obj = { ...original };
  const retain = patch['$retainKeys'];
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys') continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      if (!Array.isArray(v)) throw badRequest(`invalid value for ${k}: must be a list`);
      const cur = out[field];
      if (Array.isArray(cur)) {
        const drop = new Set(v.map((x) => JSON.stringify(x)));
        out[field] = cur.filter((x) => !drop.has(JSON.stringify(x)));
      }
      continue;
    }
    if (k.startsWith('$setElementOrder/')) continue; // applied after the merge below
    if (k.startsWith('$')) throw badRequest(`unknown patch directive ${JSON.stringify(k)}`);
    if (v === null) {
      Reflect.deleteProperty(out, k);
      continue;
    }
    const childType = childTypePath(typePath, k, isMap);
    const cur = Object.hasOwn(out, k) ? out[k] : undefined;
    if (isObject(v)) {
      const merged = mergeMap(kind, isObject(cur) ? cur : {}, v, childType);
      if (merged === DELETE) Reflect.deleteProperty(out, k);
      else setOwn(out, k, merged);
    } else if (Array.isArray(v)) {
      setOwn(out, k, mergeList(kind, Array.isArray(cur) ? cur : [], v, childType));
    } else setOwn(out, k, v);
  }
  for (const [k, v] of Object.entries(patch)) {
    if (!k.startsWith('$setElementOrder/') || !Array.isArray(v)) continue;
    const field = k.slice('$setElementOrder/'.length);
    const cur = out[field];
    const live = Object.hasOwn(original, field) ? original[field] : undefined;
    if (Array.isArray(cur))
      out[field] = normalizeOrder(
        cur,
        v,
        Array.isArray(live) ? live : [],
        keyFn(kind, childTypePath(typePath, field, isMap)),
      );
  }
  if (retain !== undefined) {
    if (!Array.isArray(retain)) throw badRequest('$retainKeys must be a list of field names');
    const keep = new Set(retain.map(String));
    for (const k of Object.keys(out)) if (!keep.has(k)) Reflect.deleteProperty(out, k);
  }
  return out;
}

/** How a list's elements are told apart: by the merge key for a list of maps, else by value. */
function keyFn(kind: string, typePath: string): (x: unknown) => string {
  const lm = smpListMeta(kind, typePath);
  return (x) =>
    lm.type === 'map' && isObject(x) ? JSON.stringify(x[lm.smpKey]) : JSON.stringify(x);
}

/** Each key's first position in `list`. */
function positions(list: readonly unknown[], keyOf: (x: unknown) => string): Map<string, number> {
  const pos = new Map<string, number>();
  list.forEach((x, i) => {
    const k = keyOf(x);
    if (!pos.has(k)) pos.set(k, i);
  });
  return pos;
}

/**
 * The reference's order of a merged list: the elements `order` names (the patch's list, or its
 * `$setElementOrder`) in that order, the others in their live order, the two interleaved by live
 * position; where either's live position is unknown (an added element) the named one goes first.
 */
function normalizeOrder(
  merged: readonly unknown[],
  order: readonly unknown[],
  live: readonly unknown[],
  keyOf: (x: unknown) => string,
): unknown[] {
  const want = positions(order, keyOf);
  const was = positions(live, keyOf);
  const at = (pos: Map<string, number>) => (x: unknown) => pos.get(keyOf(x)) ?? 0;
  const byWant = at(want);
  const byWas = at(was);
  const named = merged.filter((x) => want.has(keyOf(x))).sort((a, b) => byWant(a) - byWant(b));
  const rest = merged.filter((x) => !want.has(keyOf(x))).sort((a, b) => byWas(a) - byWas(b));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < rest.length || j < named.length) {
    const left = rest[i];
    const right = named[j];
    const takeLeft =
      j >= named.length ||
      (i < rest.length &&
        was.has(keyOf(left)) &&
        was.has(keyOf(right)) &&
        byWas(left) < byWas(right));
    out.push(takeLeft ? rest[i++] : named[j++]);
  }
  return out;
}

function mergeList(
  kind: string,
  original: unknown[],
  patch: unknown[],
  typePath: string,
): unknown[] {
  const lm = smpListMeta(kind, typePath);
  if (patch.some((x) => isObject(x) && x['$patch'] === 'replace')) {
    return stripListDirectives(patch.filter((x) => !(isObject(x) && x['$patch'] === 'replace')));
  }
  if (lm.type === 'set') {
    const seen = new Set(original.map((x) => JSON.stringify(x)));
    const out = [...original];
    for (const x of patch) {
      if (isObject(x)) throw badRequest(`invalid patch: ${typePath} is a list of primitives`);
      if (!seen.has(JSON.stringify(x))) {
        seen.add(JSON.stringify(x));
        out.push(x);
      }
    }
    return normalizeOrder(out, patch, original, keyFn(kind, typePath));
  }
  if (lm.type !== 'map') return stripListDirectives(patch);
  const key = lm.smpKey;
  const out: unknown[] = original.map((x) => structuredClone(x));
  for (const item of patch) {
    if (!isObject(item))
      throw badRequest(`invalid patch: ${typePath} is a list of objects merged by ${key}`);
    const directive = checkPatchDirective(item['$patch']);
    if (!(key in item))
      throw badRequest(`map: ${JSON.stringify(item)} does not contain declared merge key: ${key}`);
    const idx = out.findIndex(
      (x) => isObject(x) && JSON.stringify(x[key]) === JSON.stringify(item[key]),
    );
    if (directive === 'delete') {
      for (let i = out.length - 1; i >= 0; i--) {
        const x = out[i];
        if (isObject(x) && JSON.stringify(x[key]) === JSON.stringify(item[key])) out.splice(i, 1);
      }
      continue;
    }
    const target = out[idx];
    if (isObject(target)) {
      const merged = mergeMap(kind, target, item, `${typePath}[]`);
      if (merged === DELETE) out.splice(idx, 1);
      else out[idx] = merged;
    } else {
      out.push(stripDirectives(item));
    }
  }
  const named = patch.filter((x) => isObject(x) && x['$patch'] === undefined);
  return normalizeOrder(out, named, original, keyFn(kind, typePath));
}

/**
 * Applies a strategic merge patch to `original` for `kind`. Throws PatchError (400) on a malformed
 * patch.
 */
export function strategicMergePatch(
  kind: string,
  original: Record<string, unknown>,
  patch: unknown,
): Record<string, unknown> {
  if (!isObject(patch)) throw badRequest('strategic merge patch must be a JSON object');
  const merged = mergeMap(kind, structuredClone(original), patch, '');
  if (merged === DELETE)
    throw badRequest('a strategic merge patch may not delete the whole object');
  return merged;
}
