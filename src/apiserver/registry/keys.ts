// Where a resource's objects live in the store: `/<group or core>/<resource>/[<namespace>/]<name>`.
// The registry and the readers built before it (the Node authorizer's objects, the bootstrap
// token secrets) compute keys the same way, from the resource definition alone.
import type { ResourceDef } from './types.js';

/** The key prefix of a resource, or of its objects in one namespace. */
export function storagePrefix(def: ResourceDef, namespace: string): string {
  // A view (events.k8s.io Event) lives in its storage resource's keys.
  const stored = def.view?.storage ?? def;
  const base = `/${stored.group === '' ? 'core' : stored.group}/${stored.resource}/`;
  return def.namespaced && namespace !== '' ? `${base}${namespace}/` : base;
}

/** The key of one object. */
export function storageKey(def: ResourceDef, namespace: string, name: string): string {
  return storagePrefix(def, def.namespaced ? namespace : '') + name;
}
