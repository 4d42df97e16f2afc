// Served forms of stored objects, shared by every list page that returns them: one decode
// (decryption, JSON.parse, the served shape) and one serialization per object, version (its
// storage key and revision), resource (a view such as events.k8s.io serves another shape of
// the same row) and content type (JSON text, or the protobuf message bytes), instead of one per
// request. A stored revision never changes, so an entry never goes stale; the stored size is
// part of the key as a guard against a row rewritten in place (the corruption test hook, an
// operator's repair). Bounded by the total size kept.

import { LRUCache } from 'lru-cache';
import type { ResourceDef } from './types.js';

/** Total size kept: characters of JSON text plus bytes of protobuf messages. */
const MAX_SIZE = 48 * 1024 * 1024;

export type ServedFormat = 'json' | 'protobuf';

/**
 * Makes the served JSON text or protobuf message of stored values from their plaintexts,
 * somewhere other than the request's thread (--worker-threads: workers/served-job.ts); undefined
 * for a row it could not.
 */
export type ServedMaker = (
  format: ServedFormat,
  objectKind: string,
  apiVersion: string,
  rows: readonly { readonly plain: Uint8Array; readonly rv: number }[],
) => Promise<(Served | undefined)[]>;
export type Served = string | Uint8Array;

const sizeOf = (v: Served): number => Math.max(1, typeof v === 'string' ? v.length : v.byteLength);

export class ServedCache {
  private readonly lru = new LRUCache<string, Served>({
    maxSize: MAX_SIZE,
    sizeCalculation: sizeOf,
  });

  private static id(
    format: ServedFormat,
    def: ResourceDef,
    key: string,
    rv: number,
    size: number,
  ): string {
    return `${format}\n${def.group}/${def.version}/${def.resource}\n${key}\n${rv}\n${size}`;
  }

  json(def: ResourceDef, key: string, rv: number, size: number): string | undefined {
    const v = this.lru.get(ServedCache.id('json', def, key, rv, size));
    return typeof v === 'string' ? v : undefined;
  }

  protobuf(def: ResourceDef, key: string, rv: number, size: number): Uint8Array | undefined {
    const v = this.lru.get(ServedCache.id('protobuf', def, key, rv, size));
    return v instanceof Uint8Array ? v : undefined;
  }

  set(
    format: ServedFormat,
    def: ResourceDef,
    key: string,
    rv: number,
    size: number,
    value: Served,
  ): void {
    if (sizeOf(value) <= MAX_SIZE / 64)
      this.lru.set(ServedCache.id(format, def, key, rv, size), value);
  }
}
