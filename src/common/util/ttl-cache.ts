// A bounded cache of loaded values that expire after a TTL chosen per value, timed by the
// injected Clock: lru-cache underneath, with one load in flight per key (a burst of requests for
// the same key makes one call; all of them get its answer). The bound keeps a flood of distinct
// keys from growing memory without limit (least recently used entries go first). A load that
// fails is not cached; a value whose TTL is 0 or less is handed to its askers and not kept.
import { LRUCache } from 'lru-cache';
import type { Clock } from './clock.js';

export interface Loaded<V> {
  readonly value: V;
  readonly ttlMs: number;
}

export interface TtlCacheOptions<V, C> {
  readonly clock: Clock;
  /** Most entries kept (default 4096). */
  readonly max?: number;
  /** Produces the value of a key missing from the cache; `context` is what get() was given. */
  readonly load: (key: string, context: C) => Promise<Loaded<V>>;
}

// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- lru-cache's own bound on values: anything but null and undefined
export class TtlCache<V extends NonNullable<unknown>, C> {
  private readonly lru: LRUCache<string, V>;
  /** Keys whose latest load said not to keep it (TTL 0 or less). */
  private readonly notKept = new Set<string>();

  constructor(o: TtlCacheOptions<V, C>) {
    this.lru = new LRUCache<string, V, unknown>({
      max: o.max ?? 4096,
      ttlAutopurge: false,
      // Read the clock at every check (the default caches it for 1 ms), so a manual clock rules.
      ttlResolution: 0,
      perf: { now: () => o.clock.nowMs() },
      fetchMethod: async (key, _stale, { options, context }) => {
        const loaded = await o.load(key, context as C);
        // lru-cache keeps a TTL of 0 forever: a value not to be kept is marked, and get() drops it
        // once its askers have it.
        if (loaded.ttlMs <= 0) this.notKept.add(key);
        options.ttl = Math.max(1, loaded.ttlMs);
        return loaded.value;
      },
    });
  }

  /** The cached value of `key`, or the one its (shared) load produces; a failed load rejects. */
  async get(key: string, context: C): Promise<V> {
    const value = await this.lru.fetch(key, { context });
    if (this.notKept.delete(key)) this.lru.delete(key);
    if (value === undefined) throw new Error(`ttl cache: the load of ${key} gave no value`);
    return value;
  }

  get size(): number {
    return this.lru.size;
  }
}
