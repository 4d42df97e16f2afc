// remainingItemCount of paged lists without a count query per page: a page of an unfiltered
// list at snapshot revision R that starts at key S and returns n objects leaves exactly
// (remaining at S) - n, because the snapshot does not change. The first page (or a page whose
// predecessor is no longer remembered) counts in the store; every later page subtracts.

import { LRUCache } from 'lru-cache';

export class RemainingCounts {
  private readonly lru = new LRUCache<string, number>({ max: 4096 });

  private static id(rv: number, from: string, to: string): string {
    return `${rv}\n${from}\n${to}`;
  }

  /** Live keys in [from, to) (full store keys) in the snapshot `rv`, when remembered. */
  get(rv: number, from: string, to: string): number | undefined {
    return this.lru.get(RemainingCounts.id(rv, from, to));
  }

  set(rv: number, from: string, to: string, remaining: number): void {
    this.lru.set(RemainingCounts.id(rv, from, to), remaining);
  }
}
