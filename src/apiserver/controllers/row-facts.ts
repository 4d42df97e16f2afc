// What a periodic controller needs of each object under a prefix, read as an informer keeps it:
// a stored row whose revision has not changed since the last pass gives the facts taken from it
// then, without being decoded again. With a thousand nodes the node lifecycle pass reads every
// Node and Lease every 5 s; only the leases renewed since (and the few nodes that changed) are
// decoded. A row that cannot be decoded is left out, as a read of it would fail.

import type { Store, StoredObject } from '../storage/store.js';
import { prefixEnd } from '../storage/store.js';

/** What a controller reads of the store. */
export type FactsStore = Pick<Store, 'rangeRaw' | 'currentRevision' | 'decode'>;

export class RowFacts<T> {
  private readonly byKey = new Map<string, { rv: number; fact: T }>();

  constructor(
    private readonly store: FactsStore,
    private readonly extract: (obj: StoredObject) => T,
  ) {}

  /** The facts of every live object under `prefix` (ending in `/`), in key order. */
  async read(prefix: string): Promise<T[]> {
    const rows = this.store.rangeRaw(prefix, prefixEnd(prefix), this.store.currentRevision());
    const out: T[] = [];
    const seen = new Set<string>();
    for (const row of rows) {
      seen.add(row.key);
      const known = this.byKey.get(row.key);
      if (known?.rv === row.rv) {
        out.push(known.fact);
        continue;
      }
      const obj = await this.store.decode(row.key, row.rv, row.value).catch(() => undefined);
      if (obj === undefined) continue;
      const fact = this.extract(obj);
      this.byKey.set(row.key, { rv: row.rv, fact });
      out.push(fact);
    }
    for (const key of this.byKey.keys())
      if (key.startsWith(prefix) && !seen.has(key)) this.byKey.delete(key);
    return out;
  }
}
