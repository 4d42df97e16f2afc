// Sets of field paths, as managedFields records them (FieldsV1). A path is a list of path
// elements: `f:<field>`, `k:<json of the key fields>` (an element of a keyed list), `v:<json>`
// (an element of a set), `i:<index>`. A path in the set is owned; FieldsV1 writes a member that
// also has owned children with a `.` entry.

import { isRecord, recordOf } from '../../common/util/json-shape.js';

export type PathElement = string;
export type FieldPath = readonly PathElement[];

const SEP = '\n';

export class FieldSet {
  private readonly paths: Set<string>;
  constructor(paths?: Iterable<string>) {
    this.paths = new Set(paths);
  }
  static of(paths: Iterable<FieldPath>): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.add(p);
    return s;
  }
  add(p: FieldPath): void {
    this.paths.add(p.join(SEP));
  }
  has(p: FieldPath): boolean {
    return this.paths.has(p.join(SEP));
  }
  get size(): number {
    return this.paths.size;
  }
  get empty(): boolean {
    return this.paths.size === 0;
  }
  *[Symbol.iterator](): IterableIterator<FieldPath> {
    for (const k of this.paths) yield k === '' ? [] : k.split(SEP);
  }
  union(o: FieldSet): FieldSet {
    return new FieldSet([...this.paths, ...o.paths]);
  }
  difference(o: FieldSet): FieldSet {
    return new FieldSet([...this.paths].filter((k) => !o.paths.has(k)));
  }
  intersection(o: FieldSet): FieldSet {
    return new FieldSet([...this.paths].filter((k) => o.paths.has(k)));
  }
  equals(o: FieldSet): boolean {
    return this.size === o.size && [...this.paths].every((k) => o.paths.has(k));
  }
  /** Drops every path equal to or under one of `prefixes`. */
  withoutPrefixes(prefixes: readonly FieldPath[]): FieldSet {
    const exact = new Set(prefixes.map((p) => p.join(SEP)));
    const under = [...exact].map((p) => p + SEP);
    const out = new FieldSet();
    for (const k of this.paths) {
      if (exact.has(k)) continue;
      let drop = false;
      for (const u of under) {
        if (k.startsWith(u)) {
          drop = true;
          break;
        }
      }
      if (!drop) out.paths.add(k);
    }
    return out;
  }
  /** True when `p` or any path under it is in the set. */
  hasPrefixOf(p: FieldPath): boolean {
    const k = p.join(SEP);
    for (const x of this.paths) if (x === k || x.startsWith(k + SEP)) return true;
    return false;
  }
  /** Paths in a stable order (FieldsV1 and conflict messages). */
  sorted(): FieldPath[] {
    return [...this].sort((a, b) => comparePaths(a, b));
  }
}

function comparePaths(a: FieldPath, b: FieldPath): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

export interface FieldsV1 {
  [pe: string]: FieldsV1;
}

/** The FieldsV1 tree of a set. */
export function toFieldsV1(set: FieldSet): FieldsV1 {
  interface Node {
    member: boolean;
    children: Map<string, Node>;
  }
  const root: Node = { member: false, children: new Map() };
  for (const p of set) {
    let n = root;
    for (const pe of p) {
      let c = n.children.get(pe);
      if (c === undefined) {
        c = { member: false, children: new Map() };
        n.children.set(pe, c);
      }
      n = c;
    }
    n.member = true;
  }
  const emit = (n: Node): FieldsV1 => {
    const out: FieldsV1 = {};
    if (n.member && n.children.size > 0) out['.'] = {};
    for (const k of [...n.children.keys()].sort())
      out[k] = emit(n.children.get(k) ?? { member: false, children: new Map() });
    return out;
  };
  return emit(root);
}

/** Reads a FieldsV1 tree; throws Error on a malformed one. */
export function fromFieldsV1(v: unknown): FieldSet {
  const set = new FieldSet();
  const visit = (node: unknown, path: PathElement[]): void => {
    if (!isRecord(node)) throw new Error('FieldsV1 must be a tree of objects');
    const entries = Object.entries(node);
    if (entries.length === 0) {
      if (path.length > 0) set.add(path);
      return;
    }
    for (const [pe, child] of entries) {
      if (pe === '.') {
        if (path.length > 0) set.add(path);
        continue;
      }
      if (!/^[fkvi]:/.test(pe)) throw new Error(`unknown path element ${JSON.stringify(pe)}`);
      visit(child, [...path, pe]);
    }
  };
  visit(v, []);
  return set;
}

/**
 * A path as the reference prints it in conflicts: `.spec.x`, `[type="Approved"]`, `[="v"]`, `[0]`.
 */
export function pathString(p: FieldPath): string {
  let s = '';
  for (const pe of p) {
    const kind = pe.slice(0, 2);
    const rest = pe.slice(2);
    if (kind === 'f:') s += `.${rest}`;
    else if (kind === 'i:') s += `[${rest}]`;
    else if (kind === 'v:') s += `[=${rest}]`;
    else if (kind === 'k:') {
      try {
        const keys = recordOf(JSON.parse(rest));
        s += `[${Object.entries(keys)
          .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
          .join(',')}]`;
      } catch {
        s += `[${rest}]`;
      }
    }
  }
  return s;
}

export const fieldPE = (name: string): PathElement => `f:${name}`;
export const valuePE = (v: unknown): PathElement => `v:${JSON.stringify(v)}`;
export const indexPE = (i: number): PathElement => `i:${i}`;
export function keyPE(item: Record<string, unknown>, keys: readonly string[]): PathElement {
  const k: Record<string, unknown> = {};
  for (const name of [...keys].sort()) if (item[name] !== undefined) k[name] = item[name];
  return `k:${JSON.stringify(k)}`;
}
