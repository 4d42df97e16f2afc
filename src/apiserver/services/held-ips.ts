// Keeps the cluster IP allocator in step with the stored Services: every address a stored
// Service holds is taken (read once at start, then from each committed change), and a deleted
// Service's address is given back.

import { isRecord, listOf } from '../../common/util/json-shape.js';
import type { Change, Store } from '../storage/store.js';
import { prefixEnd, StoreReadError } from '../storage/store.js';
import type { ClusterIpAllocator } from './ip-allocator.js';

function ipsOf(obj: Record<string, unknown> | undefined): string[] {
  const spec = isRecord(obj?.['spec']) ? obj['spec'] : {};
  return listOf(spec['clusterIPs']).filter((x): x is string => typeof x === 'string');
}

/** Loads what stored Services hold and follows changes under `prefix`; returns the unsubscribe. */
export async function followServices(
  allocator: ClusterIpAllocator,
  store: Store,
  prefix: string,
): Promise<() => void> {
  const unsubscribe = store.subscribe((c: Change) => {
    if (!c.key.startsWith(prefix)) return;
    for (const ip of ipsOf(c.prev)) allocator.release(ip, c.key);
    if (c.type !== 'DELETED') for (const ip of ipsOf(c.object)) allocator.hold(ip, c.key);
  });
  for (const row of store.rangeRaw(prefix, prefixEnd(prefix), store.currentRevision())) {
    try {
      for (const ip of ipsOf(await store.decode(row.key, row.rv, row.value)))
        allocator.hold(ip, row.key);
    } catch (err) {
      // An unreadable Service holds nothing we can know; its own reads answer 500 elsewhere.
      if (!(err instanceof StoreReadError)) throw err;
    }
  }
  return unsubscribe;
}
