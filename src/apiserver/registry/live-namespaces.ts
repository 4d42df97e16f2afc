// Which namespaces exist, remembered once read: every namespaced create asks, and reading the
// namespace's row from the store was the largest single cost of an event create. A namespace is
// forgotten when the store says its key stopped being live (deleted or force-deleted, once that
// is durable), so an answer is never older than what a read of the store would give.

import type { Store } from '../storage/store.js';

const PREFIX = '/core/namespaces/';
/** Past this many remembered namespaces the set starts over (a bound, not a working size). */
const MAX_REMEMBERED = 10_000;

export class LiveNamespaces {
  private readonly known = new Set<string>();

  constructor(private readonly store: Pick<Store, 'getRaw' | 'onKeyGone'>) {
    store.onKeyGone((key) => {
      if (key.startsWith(PREFIX)) this.known.delete(key.slice(PREFIX.length));
    });
  }

  exists(namespace: string): boolean {
    if (this.known.has(namespace)) return true;
    if (this.store.getRaw(`${PREFIX}${namespace}`) === undefined) return false;
    if (this.known.size >= MAX_REMEMBERED) this.known.clear();
    this.known.add(namespace);
    return true;
  }
}
