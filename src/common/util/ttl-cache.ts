// A bounded cache of loaded values that expire after a TTL chosen per value, timed by the
// injected Clock: lru-cache underneath, with one load in flight per key (a burst of requests for
// the same key makes one call; all of them get its answer). The bound keeps a flood of distinct
// keys from growing memory without limit (least recently used entries go first). A load that
// fails is not cached; a value whose TTL is 0 or less is handed to its askers and not kept.
// `clockLru` is the same lru-cache on the Clock for a cache whose key is known only after the
// load (the credential provider plugins' cacheKeyType).
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

/** An lru-cache of at most `max` entries whose TTLs (given per set) run on `clock`. */
// lru-cache's own bound on values: anything but null and undefined
// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type
export function clockLru<V extends NonNullable<unknown>>(
  clock: Clock,
  max: number,
  extra: Omit<LRUCache.Options<string, V, unknown>, 'max' | 'perf'> = {},
): LRUCache<string, V> {
  // Read the clock at every check (the default caches it for 1 ms), so a manual clock rules.
  return new LRUCache<string, V, unknown>({
    ttlAutopurge: false,
    ttlResolution: 0,
    ...extra,
    max,
    perf: { now: () => clock.nowMs() },
  });
}

// lru-cache's own bound on values: anything but null and undefined
// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type
export class TtlCache<V extends NonNullable<unknown>, C> {
  private readonly lru: LRUCache<string, V>;
  /** Keys whose latest load said not to keep it (TTL 0 or less). */
  private readonly notKept = new Set<string>();

  constructor(o: TtlCacheOptions<V, C>) {
    this.lru = clockLru<V>(o.clock, o.max ?? 4096, {
      fetchMethod: async (key, _stale, { options, context }) => {
        // lru-cache's fetch options are conditional types that do not resolve for a generic C, so
        // the cache holds the context as unknown; it is always the C that get() was given.
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
