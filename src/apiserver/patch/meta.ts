// How the lists and maps of the built-in kinds merge: the strategic-merge-patch keys
// (patchMergeKey/patchStrategy) and the server-side-apply list types (listType=map with its keys,
// set, atomic). Paths are "type paths": field names joined by '.', `[]` for a list element, `{}`
// for a map value (e.g. `spec.containers[].env`).

import type { Schema } from '../schema/types.js';
import { schemaForKind } from '../schema/kinds.js';

export type ListMeta =
  | { readonly type: 'map'; readonly keys: readonly string[]; readonly smpKey: string; readonly retainKeys?: boolean }
  | { readonly type: 'set' }
  | { readonly type: 'atomic' };

const byKey = (...keys: string[]): ListMeta => ({ type: 'map', keys, smpKey: keys[0] ?? '' });

const META_LISTS: Record<string, ListMeta> = {
  'metadata.finalizers': { type: 'set' },
  'metadata.ownerReferences': byKey('uid'),
  'metadata.managedFields': { type: 'atomic' },
};

function containerLists(prefix: string): Record<string, ListMeta> {
  return {
    [prefix]: byKey('name'),
    [`${prefix}[].ports`]: { type: 'map', keys: ['containerPort', 'protocol'], smpKey: 'containerPort' },
    [`${prefix}[].env`]: byKey('name'),
    [`${prefix}[].volumeMounts`]: byKey('mountPath'),
    [`${prefix}[].volumeDevices`]: byKey('devicePath'),
    [`${prefix}[].resizePolicy`]: byKey('resourceName'),
  };
}

const LISTS: Readonly<Record<string, Readonly<Record<string, ListMeta>>>> = {
  CertificateSigningRequest: { ...META_LISTS, 'status.conditions': byKey('type') },
  Event: META_LISTS,
  Namespace: { ...META_LISTS, 'status.conditions': byKey('type') },
  Node: {
    ...META_LISTS,
    'spec.taints': { type: 'map', keys: ['key', 'effect'], smpKey: 'key' },
    'spec.podCIDRs': { type: 'set' },
    'status.addresses': byKey('type'),
    'status.conditions': byKey('type'),
    'status.volumesAttached': byKey('name'),
  },
  Pod: {
    ...META_LISTS,
    ...containerLists('spec.containers'),
    ...containerLists('spec.initContainers'),
    ...containerLists('spec.ephemeralContainers'),
    'spec.volumes': { type: 'map', keys: ['name'], smpKey: 'name', retainKeys: true },
    'spec.imagePullSecrets': byKey('name'),
    'spec.hostAliases': byKey('ip'),
    'status.conditions': byKey('type'),
    'status.podIPs': byKey('ip'),
    'status.hostIPs': byKey('ip'),
  },
};

/** The list type at a type path (atomic when nothing is declared). */
export function listMeta(kind: string, typePath: string): ListMeta {
  return LISTS[kind]?.[typePath] ?? { type: 'atomic' };
}

/** Whether the object at a type path is a map (granular, its own membership recorded) rather than a struct. */
export function isMapType(kind: string, typePath: string): boolean {
  const schema = schemaForKind(kind);
  if (schema === undefined) return false;
  let cur: Schema | undefined = schema;
  for (const seg of typePath === '' ? [] : typePath.split('.')) {
    if (cur === undefined) return false;
    let name = seg;
    let suffix = '';
    const m = /^(.*?)((?:\[\]|\{\})*)$/.exec(seg);
    if (m !== null) {
      name = m[1] ?? seg;
      suffix = m[2] ?? '';
    }
    if (name !== '') {
      if (cur.t !== 'object') return false;
      cur = cur.fields[name];
    }
    for (let i = 0; i < suffix.length; i += 2) {
      if (cur === undefined) return false;
      const tok = suffix.slice(i, i + 2);
      if (tok === '[]' && cur.t === 'array') cur = cur.items;
      else if (tok === '{}' && cur.t === 'map') cur = cur.values;
      else return false;
    }
  }
  return cur?.t === 'map';
}

/** Type path of a child field. */
export function childTypePath(parent: string, field: string, parentIsMap: boolean): string {
  if (parentIsMap) return `${parent}{}`;
  return parent === '' ? field : `${parent}.${field}`;
}

/** Kinds whose status is a subresource (writes to the main resource do not own status, and vice versa). */
export const KINDS_WITH_STATUS: ReadonlySet<string> = new Set(['CertificateSigningRequest', 'Pod', 'Node', 'Namespace']);
