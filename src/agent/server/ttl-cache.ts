// A small bounded cache whose entries expire after their own TTL, timed by the injected clock.
// Used by the token and SubjectAccessReview webhooks; the bound keeps a flood of distinct
// credentials from growing memory without limit (oldest entries are evicted first).

import type { Clock } from '../../common/util/clock.js';

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresMs: number }>();
  private readonly clock: Clock;
  private readonly maxEntries: number;

  constructor(options: { clock: Clock; maxEntries?: number }) {
    this.clock = options.clock;
    this.maxEntries = options.maxEntries ?? 4096;
  }

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (this.clock.nowMs() >= e.expiresMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresMs: this.clock.nowMs() + ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}
