// NodeObjects over the store: the Node authorizer and NodeRestriction read pods and nodes as
// stored (decrypted, never through admission), so they are built over the store, before the
// registry whose admission they are part of.

import type { ResourceDef } from '../../registry/types.js';
import { storageKey, storagePrefix } from '../../registry/keys.js';
import { StoreReadError, prefixEnd, type Store } from '../../storage/store.js';
import { podNodeName, type NodeObjects, type Obj } from './objects.js';

export class StoreNodeObjects implements NodeObjects {
  private readonly store: Store;
  private readonly pod: ResourceDef;
  private readonly node: ResourceDef;

  constructor(o: { store: Store; pod: ResourceDef; node: ResourceDef }) {
    this.store = o.store;
    this.pod = o.pod;
    this.node = o.node;
  }

  private async read(def: ResourceDef, namespace: string, name: string): Promise<Obj | undefined> {
    const key = storageKey(def, namespace, name);
    const raw = this.store.getRaw(key);
    return raw === undefined ? undefined : this.store.decode(key, raw.rv, raw.value);
  }

  getPod(namespace: string, name: string): Promise<Obj | undefined> {
    return this.read(this.pod, namespace, name);
  }

  getNode(name: string): Promise<Obj | undefined> {
    return this.read(this.node, '', name);
  }

  async podsBoundTo(nodeName: string, namespace: string): Promise<Obj[]> {
    const { store } = this;
    const from = storagePrefix(this.pod, namespace);
    const out: Obj[] = [];
    for (const row of store.rangeRaw(from, prefixEnd(from), store.currentRevision())) {
      try {
        const p = await store.decode(row.key, row.rv, row.value);
        if (podNodeName(p) === nodeName) out.push(p);
      } catch (err) {
        // An unreadable pod relates nothing to the node (its own reads answer 500 elsewhere).
        if (!(err instanceof StoreReadError)) throw err;
      }
    }
    return out;
  }
}
