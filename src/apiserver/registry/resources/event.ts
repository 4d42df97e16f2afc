// Event (core/v1, namespaced). The reference's rule: the involved object's namespace must equal
// the event's namespace, and events about cluster-scoped objects live in `default`.

import { textOf } from '../../../common/util/text-of.js';
import type { FieldErrorLike } from '../../status.js';
import { validateObjectMeta, isDns1123Subdomain } from '../meta.js';
import { metaOf, objAt, str, type Obj, type ResourceDef } from '../types.js';

function validateEvent(obj: Obj): FieldErrorLike[] {
  const errs = validateObjectMeta(obj, true, isDns1123Subdomain);
  const ns = str(metaOf(obj)['namespace']) ?? '';
  const involved = objAt(obj, 'involvedObject') ?? {};
  const involvedNs = str(involved['namespace']) ?? '';
  if (involvedNs === '' ? ns !== 'default' && ns !== '' : involvedNs !== ns) {
    errs.push({
      type: 'FieldValueInvalid',
      field: 'involvedObject.namespace',
      value: involvedNs,
      detail: 'does not match event.namespace',
    });
  }
  const type = obj['type'];
  if (obj['eventTime'] !== undefined && obj['eventTime'] !== null) {
    // New-style events (with eventTime) carry the reporting fields.
    for (const [f, label] of [
      ['reportingComponent', 'reportingController'],
      ['reportingInstance', 'reportingInstance'],
      ['action', 'action'],
      ['reason', 'reason'],
    ] as const) {
      const v = str(obj[f]) ?? '';
      if (v === '') errs.push({ type: 'FieldValueRequired', field: label, detail: '' });
      else if (v.length > 128)
        errs.push({
          type: 'FieldValueInvalid',
          field: label,
          value: v,
          detail: 'can have at most 128 characters',
        });
    }
    if (type !== 'Normal' && type !== 'Warning') {
      errs.push({
        type: 'FieldValueInvalid',
        field: 'type',
        value: type ?? '',
        detail: 'has invalid value: ' + textOf(type ?? ''),
      });
    }
  }
  for (const f of ['count'] as const) {
    const v = obj[f];
    if (v !== undefined && v !== null && (typeof v !== 'number' || !Number.isInteger(v))) {
      errs.push({ type: 'FieldValueInvalid', field: f, value: v, detail: 'must be an integer' });
    }
  }
  return errs;
}

export const eventDef: ResourceDef = {
  resource: 'events',
  singularName: 'event',
  group: '',
  version: 'v1',
  kind: 'Event',
  listKind: 'EventList',
  namespaced: true,
  shortNames: ['ev'],
  subresources: [],
  allowCreateOnUpdate: true,
  returnDeletedObject: false,
  prepareForCreate: () => undefined,
  validateCreate: (obj) => validateEvent(obj),
  prepareForUpdate: () => undefined,
  validateUpdate: (obj) => [...validateEvent(obj)],
};
