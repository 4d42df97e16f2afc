// configMapAndSecretChangeDetectionStrategy Cache and Get. Cache: each object registered pods
// refer to is read from the API server when first asked for after a pod's registration, then
// answered from memory until it is older than the TTL (the reference's default, 1 minute); when a
// refresh fails for another reason than not-found, the last object read is answered. Get: every
// `get` reads the API server (no registration needed). Not-found is the API's message
// (`configmaps "x" not found`), as both of the reference's managers pass it on.
import type { Clock } from '../../common/util/clock.js';
import type { Pod } from '../pod/types.js';
import type { ObjectReader } from './reader.js';
import { PodRegistrations } from './registrations.js';
import {
  ObjectNotFoundError,
  objectKey,
  type ObjectKind,
  type PodObject,
  type PodObjects,
} from './types.js';

/** The reference's default TTL of the caching managers. */
export const DEFAULT_OBJECT_TTL_MS = 60_000;

interface Cached {
  object: PodObject | undefined;
  readAtMs: number;
}

export class CachingObjectManager implements PodObjects {
  private readonly regs = new PodRegistrations();
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly o: { reader: ObjectReader; clock: Clock; ttlMs?: number }) {}

  registerPod(pod: Pod): void {
    const { added, removed } = this.regs.register(pod);
    // a newly registered pod reads its objects fresh on first use, as the reference's AddReference
    for (const r of added) this.cache.delete(objectKey(r.kind, r.namespace, r.name));
    for (const r of removed) this.cache.delete(objectKey(r.kind, r.namespace, r.name));
  }

  unregisterPod(pod: Pod): void {
    for (const r of this.regs.unregister(pod))
      this.cache.delete(objectKey(r.kind, r.namespace, r.name));
  }

  stop(): void {
    this.cache.clear();
  }

  async get(kind: ObjectKind, namespace: string, name: string): Promise<PodObject> {
    const key = objectKey(kind, namespace, name);
    if (!this.regs.isWanted(key)) throw new Error(`object "${namespace}"/"${name}" not registered`);
    const cached = this.cache.get(key);
    const ttl = this.o.ttlMs ?? DEFAULT_OBJECT_TTL_MS;
    if (cached?.object !== undefined && this.o.clock.nowMs() - cached.readAtMs < ttl)
      return cached.object;
    try {
      const object = await this.o.reader.get(kind, namespace, name);
      if (this.regs.isWanted(key)) this.cache.set(key, { object, readAtMs: this.o.clock.nowMs() });
      return object;
    } catch (err) {
      if (!(err instanceof ObjectNotFoundError) && cached?.object !== undefined)
        return cached.object;
      throw err;
    }
  }
}

export class GettingObjectManager implements PodObjects {
  constructor(private readonly o: { reader: ObjectReader }) {}
  registerPod(): void {
    // every get reads the API server: nothing to keep per pod
  }
  unregisterPod(): void {
    // as registerPod
  }
  stop(): void {
    // nothing runs
  }
  get(kind: ObjectKind, namespace: string, name: string): Promise<PodObject> {
    return this.o.reader.get(kind, namespace, name);
  }
}
