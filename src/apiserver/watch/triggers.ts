// Indexed triggers for watches, as the reference's watch cache has them: a watch whose field
// selector pins one value of an indexed field (a pod's spec.nodeName, which every node's agent
// watches; any object's metadata.name, as an agent watches its own Node) is told only of the
// changes whose object has that value before or after the change. One map lookup per change
// replaces one call per watcher, so a thousand nodes' pod watches cost what one does when a pod
// of one node changes. The changes still arrive in commit order, synchronously with the store's
// other listeners, so a watch's start and its live changes line up by revision as before.

import type { FieldSelector } from '../selectors/field.js';
import { requiresExactMatch } from '../selectors/field.js';
import { fieldGetterFor } from '../selectors/fields.js';
import type { ChangeListener, Store, StoredObject } from '../storage/store.js';
import type { ResourceDef } from '../registry/types.js';

/** The indexed field and the value a watch pins. */
export interface Trigger {
  readonly field: string;
  readonly value: string;
}

/** The trigger of a watch's field selector, if it pins an indexed field. */
export function triggerOf(def: ResourceDef, sel: FieldSelector | undefined): Trigger | undefined {
  // A view's selectable fields are its storage's, renamed: only plain resources are indexed.
  if (sel === undefined || def.view !== undefined) return undefined;
  const node = def.resource === 'pods' ? requiresExactMatch(sel, 'spec.nodeName') : undefined;
  if (node !== undefined) return { field: 'spec.nodeName', value: node };
  const name = requiresExactMatch(sel, 'metadata.name');
  return name === undefined ? undefined : { field: 'metadata.name', value: name };
}

interface Group {
  readonly prefix: string;
  readonly value: (o: StoredObject) => string | undefined;
  readonly byValue: Map<string, Set<ChangeListener>>;
}

class TriggerHub {
  private readonly groups = new Map<string, Group>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly store: Store) {}

  subscribe(
    def: ResourceDef,
    prefix: string,
    trigger: Trigger,
    listener: ChangeListener,
  ): () => void {
    const id = `${prefix}\u0000${trigger.field}`;
    let g = this.groups.get(id);
    if (g === undefined) {
      const field = trigger.field;
      g = {
        prefix,
        value: (o) => fieldGetterFor(def.resource, o)(field),
        byValue: new Map(),
      };
      this.groups.set(id, g);
    }
    const set = g.byValue.get(trigger.value) ?? new Set<ChangeListener>();
    set.add(listener);
    g.byValue.set(trigger.value, set);
    this.unsubscribe ??= this.store.subscribe((c) => this.dispatch(c));
    const group = g;
    return () => this.remove(id, group, trigger.value, listener);
  }

  private remove(id: string, g: Group, value: string, listener: ChangeListener): void {
    const set = g.byValue.get(value);
    set?.delete(listener);
    if (set?.size === 0) g.byValue.delete(value);
    if (g.byValue.size === 0) this.groups.delete(id);
    if (this.groups.size === 0) {
      this.unsubscribe?.();
      this.unsubscribe = undefined;
    }
  }

  private dispatch(change: Parameters<ChangeListener>[0]): void {
    for (const g of this.groups.values()) {
      if (!change.key.startsWith(g.prefix)) continue;
      const now = g.value(change.object);
      const before = change.prev === undefined ? undefined : g.value(change.prev);
      const listeners = now === undefined ? [] : [...(g.byValue.get(now) ?? [])];
      if (before !== undefined && before !== now) listeners.push(...(g.byValue.get(before) ?? []));
      callAll(listeners, change);
    }
  }
}

/** Calls every listener, even after one throws; the first error is thrown after (the store logs it). */
function callAll(
  listeners: readonly ChangeListener[],
  change: Parameters<ChangeListener>[0],
): void {
  let first: Error | undefined;
  for (const l of listeners) {
    try {
      l(change);
    } catch (err) {
      first ??= err instanceof Error ? err : new Error(String(err));
    }
  }
  if (first !== undefined) throw first;
}

const hubs = new WeakMap<Store, TriggerHub>();

/**
 * Registers `listener` for the changes under `prefix` whose object has the trigger's value before
 * or after the change; returns the unsubscribe.
 */
export function subscribeTriggered(
  store: Store,
  def: ResourceDef,
  prefix: string,
  trigger: Trigger,
  listener: ChangeListener,
): () => void {
  let hub = hubs.get(store);
  if (hub === undefined) {
    hub = new TriggerHub(store);
    hubs.set(store, hub);
  }
  return hub.subscribe(def, prefix, trigger, listener);
}
