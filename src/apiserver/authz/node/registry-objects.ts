// NodeObjects over the registry. The authorizers and admission plugins are built before the
// server (which owns the registry), so this is bound to the registry once the server exists;
// a read before that is a programming error and fails loudly (the request gets 500, never an allow).

import type { Registry } from '../../registry/registry.js';
import type { ResourceDef } from '../../registry/types.js';
import { StoreReadError, prefixEnd } from '../../storage/store.js';
import { podNodeName, type NodeObjects, type Obj } from './objects.js';

interface Bound {
  readonly registry: Registry;
  readonly pod: ResourceDef;
  readonly node: ResourceDef;
}

export class RegistryNodeObjects implements NodeObjects {
  private bound: Bound | undefined;

  bind(registry: Registry, defs: { readonly pod: ResourceDef; readonly node: ResourceDef }): void {
    this.bound = { registry, pod: defs.pod, node: defs.node };
  }

  private b(): Bound {
    if (this.bound === undefined)
      throw new Error('node objects read before the registry was bound');
    return this.bound;
  }

  private async read(def: ResourceDef, namespace: string, name: string): Promise<Obj | undefined> {
    const { registry } = this.b();
    const key = registry.key(def, namespace, name);
    const raw = registry.store.getRaw(key);
    return raw === undefined ? undefined : registry.store.decode(key, raw.rv, raw.value);
  }

  getPod(namespace: string, name: string): Promise<Obj | undefined> {
    return this.read(this.b().pod, namespace, name);
  }

  getNode(name: string): Promise<Obj | undefined> {
    return this.read(this.b().node, '', name);
  }

  async podsBoundTo(nodeName: string, namespace: string): Promise<Obj[]> {
    const { registry, pod } = this.b();
    const from = registry.prefix(pod, namespace);
    const out: Obj[] = [];
    for (const row of registry.store.rangeRaw(
      from,
      prefixEnd(from),
      registry.store.currentRevision(),
    )) {
      try {
        const p = await registry.store.decode(row.key, row.rv, row.value);
        if (podNodeName(p) === nodeName) out.push(p);
      } catch (err) {
        // An unreadable pod relates nothing to the node (its own reads answer 500 elsewhere).
        if (!(err instanceof StoreReadError)) throw err;
      }
    }
    return out;
  }
}
