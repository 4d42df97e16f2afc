// Feeds a controller queue from the store: every existing object once, then every change.

import type { Registry } from '../registry/registry.js';
import type { ResourceDef } from '../registry/types.js';
import { prefixEnd } from '../storage/store.js';

/** Calls `add(name)` for each current object and each later change; returns the unsubscribe. */
export function watchKeys(
  registry: Registry,
  def: ResourceDef,
  add: (name: string) => void,
): () => void {
  const prefix = registry.prefix(def, '');
  const store = registry.store;
  const unsubscribe = store.subscribe((c) => {
    if (c.type !== 'DELETED' && c.key.startsWith(prefix)) add(c.key.slice(prefix.length));
  });
  for (const row of store.rangeRaw(prefix, prefixEnd(prefix), store.currentRevision()))
    add(row.key.slice(prefix.length));
  return unsubscribe;
}
