// The event a watcher with selectors gets for one change: objects that start or stop matching the
// selectors turn into ADDED/DELETED, as the reference's watch cache does. Without selectors every
// change passes as it is.

import { metaOf, type Obj } from '../registry/types.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  readonly type: EventType;
  readonly object: Obj;
  /** The same for every watcher of the change (so its serialization may be shared). */
  readonly cacheable: boolean;
}

/** The event for one change (undefined: none). */
export function eventFor(
  type: 'ADDED' | 'MODIFIED' | 'DELETED',
  cur: Obj,
  prev: Obj | undefined,
  rv: number,
  matches: (o: Obj) => boolean,
  filtered: boolean,
): WatchEvent | undefined {
  if (!filtered) return { type, object: cur, cacheable: true };
  if (type === 'ADDED') return matches(cur) ? { type, object: cur, cacheable: true } : undefined;
  if (type === 'DELETED') return matches(cur) ? { type, object: cur, cacheable: true } : undefined;
  const curOk = matches(cur);
  const prevOk = prev !== undefined && matches(prev);
  if (curOk && prevOk) return { type: 'MODIFIED', object: cur, cacheable: true };
  if (curOk) return { type: 'ADDED', object: cur, cacheable: false };
  if (prevOk) {
    const gone = { ...prev, metadata: { ...metaOf(prev), resourceVersion: String(rv) } };
    return { type: 'DELETED', object: gone, cacheable: false };
  }
  return undefined;
}
