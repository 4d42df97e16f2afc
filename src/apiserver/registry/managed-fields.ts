// managedFields bookkeeping behind one small interface, so the registry does not care whether
// the full field-ownership implementation (src/apiserver/patch) is plugged in.

import type { Obj } from './types.js';

export interface ManagedFieldsArgs {
  readonly oldObj: Obj | undefined;
  readonly newObj: Obj;
  readonly manager: string;
  readonly operation: 'Update' | 'Apply';
  readonly subresource: string;
  readonly apiVersion: string;
  readonly now: Date;
}

export interface ManagedFieldsUpdater {
  /** Returns `newObj` with metadata.managedFields updated for this write. */
  update(args: ManagedFieldsArgs): Obj;
}

type Fields = Record<string, unknown>;

/** The FieldsV1 set of every field present in `v` (objects as `f:<name>` trees, lists atomic). */
function fieldSet(v: unknown): Fields {
  const out: Fields = {};
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return out;
  for (const [k, child] of Object.entries(v as Obj)) {
    out[`f:${k}`] = child !== null && typeof child === 'object' && !Array.isArray(child) ? { '.': {}, ...fieldSet(child) } : {};
  }
  return out;
}

function ownedFields(obj: Obj, subresource: string): Fields {
  const meta = (obj['metadata'] ?? {}) as Obj;
  const fields: Fields = {};
  const metaFields: Fields = {};
  for (const k of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
    if (meta[k] !== undefined) metaFields[`f:${k}`] = k === 'labels' || k === 'annotations' ? { '.': {}, ...fieldSet(meta[k]) } : {};
  }
  if (Object.keys(metaFields).length > 0 && subresource === '') fields['f:metadata'] = metaFields;
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'metadata' || k === 'kind' || k === 'apiVersion') continue;
    if ((k === 'status') !== (subresource === 'status' || subresource === 'approval')) continue;
    fields[`f:${k}`] = v !== null && typeof v === 'object' && !Array.isArray(v) ? { '.': {}, ...fieldSet(v) } : {};
  }
  return fields;
}

/**
 * A plain managedFields bookkeeper: one entry per (manager, operation, subresource) holding the
 * fields of the written object. Used when no field-ownership implementation is plugged in.
 */
export function simpleManagedFields(): ManagedFieldsUpdater {
  return {
    update: (a) => {
      const meta = { ...((a.newObj['metadata'] ?? {}) as Obj) };
      const entries = Array.isArray(meta['managedFields']) ? (meta['managedFields'] as Obj[]).filter((e) => e !== null && typeof e === 'object') : [];
      const oldEntries = a.oldObj === undefined ? [] : ((a.oldObj['metadata'] as Obj | undefined)?.['managedFields'] as Obj[] | undefined) ?? [];
      // Clients may not rewrite other managers' entries by sending them back changed: keep the stored ones.
      const base = a.oldObj === undefined ? entries : oldEntries;
      const time = a.now.toISOString().replace(/\.\d{3}Z$/, 'Z');
      const entry: Obj = {
        manager: a.manager,
        operation: a.operation,
        apiVersion: a.apiVersion,
        time,
        fieldsType: 'FieldsV1',
        fieldsV1: ownedFields(a.newObj, a.subresource),
      };
      if (a.subresource !== '') entry['subresource'] = a.subresource;
      const same = (e: Obj): boolean => e['manager'] === a.manager && e['operation'] === a.operation && (e['subresource'] ?? '') === a.subresource;
      const next = [...base.filter((e) => !same(e)), entry];
      meta['managedFields'] = next;
      return { ...a.newObj, metadata: meta };
    },
  };
}
