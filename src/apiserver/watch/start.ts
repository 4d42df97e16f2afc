// Where a watch starts: the revision after which live changes are sent, and what is sent before
// them (the initial state with its end bookmark, or the stored changes since the requested
// revision). Computed in the same synchronous step as the store listener is registered, so the two
// line up by revision.

import type { Store } from '../storage/store.js';
import { parseRv, type ListOptions } from '../registry/list.js';
import type { WatchItem } from './queue.js';

export interface WatchStart {
  /** Live changes at or below this revision are already covered by `items`. */
  readonly startRev: number;
  readonly items: WatchItem[];
}

/** Throws the store's CompactedError when the requested revision is no longer kept. */
export function watchStart(store: Store, prefix: string, end: string, o: ListOptions): WatchStart {
  const rvParam = o.resourceVersion === undefined ? undefined : parseRv(o.resourceVersion);
  const current = store.currentRevision();
  const initial =
    o.sendInitialEvents === true ||
    (o.sendInitialEvents === undefined && (rvParam === undefined || rvParam === 0));
  const items: WatchItem[] = [];
  if (initial) {
    for (const row of store.rangeRaw(prefix, end, current))
      items.push({ kind: 'raw', row, initial: true });
    if (o.sendInitialEvents === true)
      items.push({ kind: 'bookmark', rv: current, initialEnd: true });
    return { startRev: current, items };
  }
  const startRev = rvParam ?? current;
  if (startRev < current) {
    for (const row of store.changesRaw(startRev, current, prefix, end))
      items.push({ kind: 'raw', row, initial: false });
  }
  return { startRev, items };
}
