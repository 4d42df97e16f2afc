// An in-memory copy of the stored roles and bindings, so authorizing a request reads no storage.
// Filled from the store at start, then kept in step by the store's change feed (each change is
// applied right after it commits, before the writer's response is sent).

import { metaOf, str, type Obj, type ResourceDef } from '../../registry/types.js';
import { prefixEnd, StoreReadError, type Change, type Store } from '../../storage/store.js';
import type { Logger } from '../../../common/log/types.js';
import type { RbacDefs } from './resources.js';

type Kind = keyof RbacDefs;
/** Every key of RbacDefs, in its order. */
const RBAC_KINDS: readonly Kind[] = ['role', 'clusterRole', 'roleBinding', 'clusterRoleBinding'];

export class RbacCache {
  private readonly store: Store;
  private readonly logger: Logger;
  private readonly prefixes: readonly (readonly [Kind, string])[];
  private readonly objects = new Map<Kind, Map<string, Obj>>();
  private unsubscribe: (() => void) | undefined;
  private readonly listeners = new Set<(kind: Kind) => void>();
  /**
   * Sorted values per kind, rebuilt after a change of that kind (authorization reads them per
   * request).
   */
  private readonly sorted = new Map<Kind, Obj[]>();

  constructor(o: { store: Store; defs: RbacDefs; logger: Logger }) {
    this.store = o.store;
    this.logger = o.logger;
    this.prefixes = RBAC_KINDS.map((k) => [k, storagePrefix(o.defs[k])] as const);
    for (const [k] of this.prefixes) this.objects.set(k, new Map());
  }

  /**
   * Subscribes to changes, then reads what is stored (unreadable values are skipped and logged).
   */
  async start(): Promise<void> {
    const store = this.store;
    this.unsubscribe = store.subscribe((c) => this.apply(c));
    const unreadable: string[] = [];
    let firstError = '';
    for (const [kind, prefix] of this.prefixes) {
      for (const row of store.rangeRaw(prefix, prefixEnd(prefix), store.currentRevision())) {
        try {
          const obj = await store.decode(row.key, row.rv, row.value);
          this.map(kind).set(row.key.slice(prefix.length), obj);
          this.sorted.delete(kind);
        } catch (err) {
          if (!(err instanceof StoreReadError)) throw err;
          unreadable.push(row.key);
          firstError ||= err.message;
        }
      }
    }
    if (unreadable.length > 0) {
      this.logger.warn(
        { count: unreadable.length, first: unreadable.slice(0, 5), err: firstError },
        `RBAC: ${unreadable.length} stored roles or bindings cannot be read; they grant ` +
          `nothing until they are rewritten or deleted`,
      );
    }
  }

  stop(): void {
    this.unsubscribe?.();
  }

  /** Called after any role or binding changes (the aggregation controller listens). */
  onChange(listener: (kind: Kind) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private map(kind: Kind): Map<string, Obj> {
    const m = this.objects.get(kind);
    if (m === undefined) throw new Error(`RBAC cache: unknown kind ${kind}`);
    return m;
  }

  private apply(c: Change): void {
    for (const [kind, prefix] of this.prefixes) {
      if (!c.key.startsWith(prefix)) continue;
      const id = c.key.slice(prefix.length);
      if (c.type === 'DELETED') this.map(kind).delete(id);
      else this.map(kind).set(id, c.object);
      this.sorted.delete(kind);
      for (const l of this.listeners) l(kind);
      return;
    }
  }

  clusterRole(name: string): Obj | undefined {
    return this.map('clusterRole').get(name);
  }

  role(namespace: string, name: string): Obj | undefined {
    return this.map('role').get(`${namespace}/${name}`);
  }

  /** Sorted by name, as the reference's listers. */
  clusterRoles(): readonly Obj[] {
    return this.sortedOf('clusterRole');
  }

  clusterRoleBindings(): readonly Obj[] {
    return this.sortedOf('clusterRoleBinding');
  }

  roleBindings(namespace: string): Obj[] {
    return this.sortedOf('roleBinding').filter(
      (b) => (str(metaOf(b)['namespace']) ?? '') === namespace,
    );
  }

  private sortedOf(kind: Kind): readonly Obj[] {
    let list = this.sorted.get(kind);
    if (list === undefined) {
      list = sortedValues(this.map(kind));
      this.sorted.set(kind, list);
    }
    return list;
  }
}

function sortedValues(m: Map<string, Obj>): Obj[] {
  return [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}

/** The store's key layout (src/apiserver/storage/store.ts parseKey): `/<group>/<resource>/`. */
function storagePrefix(def: ResourceDef): string {
  return `/${def.group === '' ? 'core' : def.group}/${def.resource}/`;
}
