// Served JSON of stored objects, shared by every list page that returns them: one
// decode (decryption, JSON.parse, the served shape) and one JSON.stringify per object, version
// (its storage key and revision) and resource (a view such as events.k8s.io serves another
// shape of the same row), instead of one per request. A stored revision never changes, so an
// entry never goes stale; the stored size is part of the key as a guard against a row rewritten
// in place (the corruption test hook, an operator's repair). Bounded by total text size.

import { LRUCache } from 'lru-cache';
import type { ResourceDef } from './types.js';

/** Total characters of JSON text kept (about as many bytes for ASCII objects). */
const MAX_CHARS = 32 * 1024 * 1024;

export class ServedJsonCache {
  private readonly lru = new LRUCache<string, string>({ maxSize: MAX_CHARS, sizeCalculation: (text) => Math.max(1, text.length) });

  private static id(def: ResourceDef, key: string, rv: number, size: number): string {
    return `${def.group}/${def.version}/${def.resource}\n${key}\n${rv}\n${size}`;
  }

  get(def: ResourceDef, key: string, rv: number, size: number): string | undefined {
    return this.lru.get(ServedJsonCache.id(def, key, rv, size));
  }

  set(def: ResourceDef, key: string, rv: number, size: number, json: string): void {
    if (json.length <= MAX_CHARS / 64) this.lru.set(ServedJsonCache.id(def, key, rv, size), json);
  }
}
