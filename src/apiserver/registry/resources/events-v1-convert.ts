// The reference's conversion between events.k8s.io/v1 Event and the stored (core/v1) Event
// (pkg/apis/events/v1/conversion.go): note <-> message, regarding <-> involvedObject,
// reportingController <-> reportingComponent, deprecatedSource/FirstTimestamp/LastTimestamp/
// Count <-> source/firstTimestamp/lastTimestamp/count; eventTime, series, related, action,
// reason, type and reportingInstance keep their names.

import type { Obj } from '../types.js';

/** [events.k8s.io/v1 field, core/v1 field] */
const RENAMED: readonly (readonly [string, string])[] = [
  ['note', 'message'],
  ['regarding', 'involvedObject'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];
const SAME = ['eventTime', 'series', 'related', 'action', 'reason', 'type', 'reportingInstance'];

const present = (v: unknown): boolean => v !== undefined && v !== null && v !== '' && v !== 0;

/**
 * The stored core Event as events.k8s.io/v1 (without kind/apiVersion), as the reference serializes
 * it.
 */
export function eventFromStorage(core: Obj): Obj {
  const out: Obj = { metadata: core['metadata'] ?? {} };
  // The reference's non-omitempty (or struct) fields always appear.
  out['eventTime'] = core['eventTime'] ?? null;
  for (const f of SAME) if (f !== 'eventTime' && present(core[f])) out[f] = core[f];
  for (const [v1, stored] of RENAMED) if (present(core[stored])) out[v1] = core[stored];
  out['regarding'] ??= {};
  out['deprecatedSource'] ??= {};
  out['deprecatedFirstTimestamp'] ??= null;
  out['deprecatedLastTimestamp'] ??= null;
  return out;
}

/** An events.k8s.io/v1 Event as the stored core Event (kind Event, apiVersion v1). */
export function eventToStorage(v1: Obj): Obj {
  const out: Obj = { kind: 'Event', apiVersion: 'v1', metadata: v1['metadata'] ?? {} };
  for (const f of SAME) if (present(v1[f])) out[f] = v1[f];
  for (const [name, stored] of RENAMED) {
    const v = v1[name];
    const empty =
      v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;
    if (present(v) && !empty) out[stored] = v;
  }
  return out;
}

/**
 * events.k8s.io/v1 field selector labels -> the stored Event's (the reference's field label
 * conversions).
 */
export const EVENTS_V1_FIELD_LABELS: Readonly<Record<string, string>> = {
  'metadata.name': 'metadata.name',
  'metadata.namespace': 'metadata.namespace',
  reason: 'reason',
  type: 'type',
  reportingController: 'reportingComponent',
  'regarding.kind': 'involvedObject.kind',
  'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid',
  'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion',
  'regarding.fieldPath': 'involvedObject.fieldPath',
};
