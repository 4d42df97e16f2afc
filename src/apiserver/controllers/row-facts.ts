// What a periodic controller needs of each object under a prefix, read as an informer keeps it:
// a stored row whose revision has not changed since the last pass gives the facts taken from it
// then, without being decoded again. With a thousand nodes the node lifecycle pass reads every
// Node and Lease every 5 s; only the leases renewed since (and the few nodes that changed) are
// decoded. A row that cannot be decoded is left out, as a read of it would fail, and reported
// once per key and revision.

import type { Store, StoredObject } from '../storage/store.js';
import { prefixEnd } from '../storage/store.js';

/** What a controller reads of the store. */
export type FactsStore = Pick<Store, 'rangeRaw' | 'currentRevision' | 'decode'>;

/** Told of a row that cannot be decoded, once per key and revision. */
export type OnUnreadable = (key: string, rv: number, err: unknown) => void;

export class RowFacts<T> {
  /** The last pass's facts by key: a key gone since is not carried into the next pass's map. */
  private byKey = new Map<string, { rv: number; fact: T }>();
  /** The revision of each key that could not be decoded at the last pass. */
  private unreadable = new Map<string, number>();

  /** `prefix` ends in `/`: the objects read are those under it. */
  constructor(
    private readonly store: FactsStore,
    private readonly prefix: string,
    private readonly extract: (obj: StoredObject) => T,
    private readonly onUnreadable: OnUnreadable,
  ) {}

  /** The facts of every live object under the prefix, in key order. */
  async read(): Promise<T[]> {
    const { store, prefix } = this;
    const next = new Map<string, { rv: number; fact: T }>();
    const unreadable = new Map<string, number>();
    for (const row of store.rangeRaw(prefix, prefixEnd(prefix), store.currentRevision())) {
      let known = this.byKey.get(row.key);
      if (known?.rv !== row.rv) {
        const obj = await store.decode(row.key, row.rv, row.value).catch((err: unknown) => {
          if (this.unreadable.get(row.key) !== row.rv) this.onUnreadable(row.key, row.rv, err);
          unreadable.set(row.key, row.rv);
          return undefined;
        });
        known = obj === undefined ? undefined : { rv: row.rv, fact: this.extract(obj) };
      }
      if (known !== undefined) next.set(row.key, known);
    }
    this.byKey = next;
    this.unreadable = unreadable;
    return [...next.values()].map((k) => k.fact);
  }
}
