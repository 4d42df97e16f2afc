// The fields a create sets, as one FieldsV1 tree, built in one walk of the object. A create
// (nothing stored before, no managedFields sent) owns everything it sets except the fields no
// manager owns; the general path (typed.ts's compare, then FieldSet's union, difference and
// toFieldsV1) gives the same tree through three copies of every path, which was a tenth of an
// event create's time. The walk follows the same list and map semantics (meta.ts).

import { fieldPE, keyPE, valuePE, type FieldPath, type FieldsV1 } from './fieldset.js';
import { childTypePath, isMapType, listMeta } from './meta.js';
import { isObject } from './typed.js';

type Obj = Record<string, unknown>;

/** One path element of the tree: owned itself (`member`), and what is owned under it. */
interface Node {
  member: boolean;
  readonly children: Map<string, Node>;
}

/** The paths left out: a path that ends here is left out with everything under it. */
interface Skip {
  whole: boolean;
  readonly children: Map<string, Skip>;
}

function node(): Node {
  return { member: false, children: new Map() };
}

function skipTree(paths: readonly FieldPath[]): Skip {
  const root: Skip = { whole: false, children: new Map() };
  for (const p of paths) {
    let s = root;
    for (const pe of p) {
      let c = s.children.get(pe);
      if (c === undefined) {
        c = { whole: false, children: new Map() };
        s.children.set(pe, c);
      }
      s = c;
    }
    s.whole = true;
  }
  return root;
}

/** Where the walk stands: the tree node of the path, and what is left out under it. */
interface At {
  readonly kind: string;
  readonly typePath: string;
  readonly node: Node;
  readonly skip: Skip | undefined;
  /** Whether this is a path of its own (not the object's root). */
  readonly inner: boolean;
}

/** The node of a child path element, or undefined when that path is left out. */
function child(at: At, pe: string, typePath: string): At | undefined {
  const skip = at.skip?.children.get(pe);
  if (skip?.whole === true) return undefined;
  let n = at.node.children.get(pe);
  if (n === undefined) {
    n = node();
    at.node.children.set(pe, n);
  }
  return { kind: at.kind, typePath, node: n, skip, inner: true };
}

function own(at: At): void {
  at.node.member = true;
}

function walkMap(at: At, v: Obj): void {
  const keys = Object.keys(v);
  if (keys.length === 0) {
    if (at.inner) own(at);
    return;
  }
  const isMap = isMapType(at.kind, at.typePath);
  // A map is owned itself as well (an Update that makes a map owns it).
  if (isMap && at.inner) own(at);
  for (const k of keys) {
    const c = child(at, fieldPE(k), childTypePath(at.typePath, k, isMap));
    if (c !== undefined) walk(c, v[k]);
  }
}

function walkList(at: At, v: readonly unknown[]): void {
  const lm = listMeta(at.kind, at.typePath);
  if (lm.type === 'atomic' || v.length === 0) {
    own(at);
    return;
  }
  if (lm.type === 'set') {
    for (const item of v) {
      const c = child(at, valuePE(item), at.typePath);
      if (c !== undefined) own(c);
    }
    return;
  }
  for (const item of v) {
    if (!isObject(item)) {
      // A keyed list with an item that is not an object is owned whole, from here on.
      own(at);
      return;
    }
    const ep = child(at, keyPE(item, lm.keys), at.typePath);
    if (ep === undefined) continue;
    own(ep);
    for (const [k, c] of Object.entries(item)) {
      const f = child(ep, fieldPE(k), childTypePath(`${at.typePath}[]`, k, false));
      if (f !== undefined) walk(f, c);
    }
  }
}

function walk(at: At, v: unknown): void {
  if (isObject(v)) walkMap(at, v);
  else if (Array.isArray(v)) walkList(at, v);
  else own(at);
}

/** The FieldsV1 of a node; undefined when nothing is owned at or under it. */
function emit(n: Node): FieldsV1 | undefined {
  const out: FieldsV1 = {};
  let any = n.member;
  const owned: [string, FieldsV1][] = [];
  for (const k of [...n.children.keys()].sort()) {
    const c = n.children.get(k);
    const f = c === undefined ? undefined : emit(c);
    if (f !== undefined) owned.push([k, f]);
  }
  if (n.member && owned.length > 0) out['.'] = {};
  for (const [k, f] of owned) {
    out[k] = f;
    any = true;
  }
  return any ? out : undefined;
}

/** metadata without managedFields: what was sent there is not a field anyone owns. */
function withoutManagedFields(md: unknown): unknown {
  if (!isObject(md) || !Object.hasOwn(md, 'managedFields')) return md;
  const copy = { ...md };
  delete copy['managedFields'];
  return copy;
}

/**
 * The FieldsV1 a create of `obj` owns, leaving out `ignored` and everything under each; undefined
 * when it owns nothing. The root's fields with the value undefined are not set (as the general
 * comparison skips them); metadata.managedFields is never owned, nor is metadata for it.
 */
export function createdFieldsV1(
  kind: string,
  obj: Obj,
  ignored: readonly FieldPath[],
): FieldsV1 | undefined {
  const root: At = { kind, typePath: '', node: node(), skip: skipTree(ignored), inner: false };
  const rootIsMap = isMapType(kind, '');
  for (const k of Object.keys(obj)) {
    const v = k === 'metadata' ? withoutManagedFields(obj[k]) : obj[k];
    if (v === undefined) continue;
    const c = child(root, fieldPE(k), childTypePath('', k, rootIsMap));
    if (c !== undefined) walk(c, v);
  }
  return emit(root.node);
}
