// events.k8s.io/v1 Event: served over the core Events' storage (one object, two shapes; see
// events-v1-convert.ts), validated as the reference validates a write through this group
// (pkg/apis/core/validation/events.go: the legacy rules, then the strict ones for creation and
// the immutable fields of an update).

import { isDeepStrictEqual } from 'node:util';
import type { Names } from '../../../common/names.js';
import { invalid, required, type FieldError } from '../../field-errors.js';
import { isQualifiedName } from '../../../common/util/names.js';
import { isDns1123Subdomain, validateObjectMeta } from '../meta.js';
import { metaOf, objAt, str, type Obj, type ResourceDef } from '../types.js';
import { eventDef } from './event.js';
import { EVENTS_V1_FIELD_LABELS, eventFromStorage, eventToStorage } from './events-v1-convert.js';

const LIMIT_128 = 128;
const NOTE_LIMIT = 1024;

const set = (v: unknown): boolean => v !== undefined && v !== null && v !== '' && v !== 0;

function lengthRules(obj: Obj, errs: FieldError[]): void {
  for (const f of ['reportingInstance', 'action', 'reason'] as const) {
    const v = str(obj[f]) ?? '';
    if (v === '') errs.push(required(f));
    else if (v.length > LIMIT_128)
      errs.push(invalid(f, '', `can have at most ${LIMIT_128} characters`));
  }
  if ((str(obj['note']) ?? '').length > NOTE_LIMIT)
    errs.push(invalid('note', '', `can have at most ${NOTE_LIMIT} characters`));
}

/** legacyValidateEvent for a request through events.k8s.io. */
function legacyRules(obj: Obj, systemNamespace: string): FieldError[] {
  const errs: FieldError[] = [];
  const ns = str(metaOf(obj)['namespace']) ?? '';
  const regardingNs = str(objAt(obj, 'regarding')?.['namespace']) ?? '';
  if (!set(obj['eventTime'])) {
    if (regardingNs === '' ? ns !== '' && ns !== 'default' : regardingNs !== ns)
      errs.push(invalid('involvedObject.namespace', regardingNs, 'does not match event.namespace'));
    return errs;
  }
  if (regardingNs === '' && ns !== 'default' && ns !== systemNamespace)
    errs.push(invalid('involvedObject.namespace', regardingNs, 'does not match event.namespace'));
  const controller = str(obj['reportingController']) ?? '';
  if (controller === '') errs.push(required('reportingController'));
  for (const msg of isQualifiedName(controller))
    errs.push(invalid('reportingController', controller, msg));
  lengthRules(obj, errs);
  return errs;
}

function seriesRules(obj: Obj): FieldError[] {
  const series = objAt(obj, 'series');
  if (series === undefined) return [];
  const errs: FieldError[] = [];
  if (typeof series['count'] !== 'number' || series['count'] < 2)
    errs.push(invalid('series.count', '', 'should be at least 2'));
  if (!set(series['lastObservedTime'])) errs.push(required('series.lastObservedTime'));
  return errs;
}

function validateCreate(obj: Obj, systemNamespace: string): FieldError[] {
  const errs: FieldError[] = [
    ...legacyRules(obj, systemNamespace),
    ...validateObjectMeta(obj, true, isDns1123Subdomain),
    ...seriesRules(obj),
  ];
  if (!set(obj['eventTime'])) errs.push(required('eventTime'));
  const type = str(obj['type']) ?? '';
  if (type !== 'Normal' && type !== 'Warning')
    errs.push(invalid('type', '', `has invalid value: ${type}`));
  for (const f of [
    'deprecatedFirstTimestamp',
    'deprecatedLastTimestamp',
    'deprecatedCount',
  ] as const)
    if (set(obj[f])) errs.push(invalid(f, '', 'needs to be unset'));
  const source = objAt(obj, 'deprecatedSource') ?? {};
  if (set(source['component']) || set(source['host']))
    errs.push(invalid('deprecatedSource', '', 'needs to be unset'));
  return errs;
}

/**
 * [events.k8s.io/v1 field, the field path the reference names] of what an update may not change.
 */
const IMMUTABLE: readonly (readonly [string, string])[] = [
  ['regarding', 'involvedObject'],
  ['reason', 'reason'],
  ['note', 'note'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
  ['type', 'type'],
  ['eventTime', 'eventTime'],
  ['action', 'action'],
  ['related', 'related'],
  ['reportingController', 'reportingController'],
  ['reportingInstance', 'reportingInstance'],
];

function validateUpdate(obj: Obj, old: Obj, systemNamespace: string): FieldError[] {
  const errs = legacyRules(obj, systemNamespace);
  if (!isDeepStrictEqual(obj['series'], old['series'])) errs.push(...seriesRules(obj));
  for (const [f, path] of IMMUTABLE) {
    if (!isDeepStrictEqual(obj[f] ?? null, old[f] ?? null))
      errs.push(invalid(path, obj[f] ?? null, 'field is immutable'));
  }
  return errs;
}

/** events.k8s.io/v1 Event of a naming profile. */
export function eventsV1Def(names: Names): ResourceDef {
  const system = names.namespaces.system;
  return {
    ...eventDef,
    group: names.groups.events,
    shortNames: ['ev'],
    prepareForCreate: () => undefined,
    validateCreate: (obj) => validateCreate(obj, system),
    prepareForUpdate: () => undefined,
    validateUpdate: (obj, old) => validateUpdate(obj, old, system),
    view: {
      storage: eventDef,
      fromStorage: eventFromStorage,
      toStorage: eventToStorage,
      fieldLabels: EVENTS_V1_FIELD_LABELS,
    },
  };
}
