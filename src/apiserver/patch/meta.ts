// How the lists and maps of the built-in kinds merge: the strategic-merge-patch keys
// (patchMergeKey/patchStrategy) and the server-side-apply list types (listType=map with its keys,
// set, atomic), read from the kinds' schema table (schema/kinds.ts, the one description the
// OpenAPI documents are generated from too). Paths are "type paths": field names joined by '.',
// `[]` for a list element, `{}` for a map value (e.g. `spec.containers[].env`).

import type { ListExt, Schema } from '../schema/types.js';
import { schemaForKind } from '../schema/kinds.js';

export type ListMeta =
  | {
      readonly type: 'map';
      readonly keys: readonly string[];
      readonly smpKey: string;
      readonly retainKeys?: boolean;
    }
  | { readonly type: 'set' }
  | { readonly type: 'atomic' };

const ATOMIC: ListMeta = { type: 'atomic' };

/** The schema node at a type path of a kind, or undefined when the path leaves the known fields. */
function schemaAt(kind: string, typePath: string): Schema | undefined {
  let cur: Schema | undefined = schemaForKind(kind);
  for (const seg of typePath === '' ? [] : typePath.split('.')) {
    if (cur === undefined) return undefined;
    const m = /^(.*?)((?:\[\]|\{\})*)$/.exec(seg);
    const name = m?.[1] ?? seg;
    const suffix = m?.[2] ?? '';
    if (name !== '') {
      if (cur.t !== 'object') return undefined;
      cur = cur.fields[name];
    }
    for (let i = 0; i < suffix.length; i += 2) {
      const tok = suffix.slice(i, i + 2);
      if (tok === '[]' && cur?.t === 'array') cur = cur.items;
      else if (tok === '{}' && cur?.t === 'map') cur = cur.values;
      else return undefined;
    }
  }
  return cur;
}

function listExtAt(kind: string, typePath: string): ListExt | undefined {
  const s = schemaAt(kind, typePath);
  return s?.t === 'array' ? s.list : undefined;
}

/**
 * The server-side-apply list type at a type path (x-kubernetes-list-type; atomic when nothing is
 * declared).
 */
export function listMeta(kind: string, typePath: string): ListMeta {
  const x = listExtAt(kind, typePath);
  if (x?.listType === 'set') return { type: 'set' };
  if (x?.listType !== 'map') return ATOMIC;
  const keys = x.mapKeys ?? [];
  return {
    type: 'map',
    keys,
    smpKey: x.patchMergeKey ?? keys[0] ?? '',
    retainKeys: x.patchStrategy?.includes('retainKeys') === true,
  };
}

/**
 * How strategic merge patch treats the list at a type path (x-kubernetes-patch-strategy/-merge-key;
 * replace when nothing is declared).
 */
export function smpListMeta(kind: string, typePath: string): ListMeta {
  const x = listExtAt(kind, typePath);
  if (x?.patchStrategy?.split(',').includes('merge') !== true) return ATOMIC;
  if (x.patchMergeKey === undefined) return { type: 'set' };
  return {
    type: 'map',
    keys: [x.patchMergeKey],
    smpKey: x.patchMergeKey,
    retainKeys: x.patchStrategy.includes('retainKeys'),
  };
}

/**
 * Whether the object at a type path is a map (granular, its own membership recorded) rather than a
 * struct.
 */
export function isMapType(kind: string, typePath: string): boolean {
  return schemaAt(kind, typePath)?.t === 'map';
}

/** Type path of a child field. */
export function childTypePath(parent: string, field: string, parentIsMap: boolean): string {
  if (parentIsMap) return `${parent}{}`;
  return parent === '' ? field : `${parent}.${field}`;
}

/**
 * Kinds whose status is a subresource (writes to the main resource do not own status, and vice
 * versa).
 */
export const KINDS_WITH_STATUS: ReadonlySet<string> = new Set([
  'CertificateSigningRequest',
  'Pod',
  'Node',
  'Namespace',
]);
