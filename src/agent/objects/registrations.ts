// Which pods refer to which objects: a pod's registration replaces its previous one, and an
// object is wanted while at least one registered pod refers to it (the reference's reference
// counting in its object stores).
import type { Pod } from '../pod/types.js';
import { podObjectRefs } from './pod-references.js';
import { objectKey, type ObjectKind } from './types.js';

export interface ObjectRef {
  kind: ObjectKind;
  namespace: string;
  name: string;
}

export class PodRegistrations {
  private readonly byPod = new Map<string, Map<string, ObjectRef>>();
  private readonly counts = new Map<string, number>();

  /**
   * Registers the pod's references; answers the objects now wanted that were not, and those no
   * longer wanted.
   */
  register(pod: Pod): { added: ObjectRef[]; removed: ObjectRef[] } {
    const next = new Map<string, ObjectRef>();
    for (const r of podObjectRefs(pod)) {
      const ref = { kind: r.kind, namespace: pod.metadata.namespace, name: r.name };
      next.set(objectKey(ref.kind, ref.namespace, ref.name), ref);
    }
    const prev = this.byPod.get(pod.metadata.uid) ?? new Map<string, ObjectRef>();
    this.byPod.set(pod.metadata.uid, next);
    const added: ObjectRef[] = [];
    const removed: ObjectRef[] = [];
    for (const [k, ref] of next) if (!prev.has(k) && this.inc(k)) added.push(ref);
    for (const [k, ref] of prev) if (!next.has(k) && this.dec(k)) removed.push(ref);
    return { added, removed };
  }

  /** Unregisters the pod; answers the objects no longer wanted. */
  unregister(pod: Pod): ObjectRef[] {
    const prev = this.byPod.get(pod.metadata.uid);
    this.byPod.delete(pod.metadata.uid);
    const removed: ObjectRef[] = [];
    for (const [k, ref] of prev ?? []) if (this.dec(k)) removed.push(ref);
    return removed;
  }

  isWanted(key: string): boolean {
    return (this.counts.get(key) ?? 0) > 0;
  }

  /** True when the object was not wanted before. */
  private inc(key: string): boolean {
    const n = this.counts.get(key) ?? 0;
    this.counts.set(key, n + 1);
    return n === 0;
  }

  /** True when the object is no longer wanted. */
  private dec(key: string): boolean {
    const n = (this.counts.get(key) ?? 0) - 1;
    if (n <= 0) this.counts.delete(key);
    else this.counts.set(key, n);
    return n <= 0;
  }
}
