// Lease (coordination.{group domain}/v1, namespaced): the node heartbeat. Validation as the
// reference's (ValidateLeaseSpec): leaseDurationSeconds and leaseTransitions, when set, must be
// greater than 0 and not negative; the time fields must be MicroTime strings.

import type { FieldErrorLike } from '../../status.js';
import { validateObjectMeta, isDns1123Subdomain } from '../meta.js';
import { objAt, type Obj, type ResourceDef } from '../types.js';

/**
 * RFC 3339 with microseconds, as the reference's MicroTime (a second-precision time is accepted).
 */
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

function validateLease(obj: Obj): FieldErrorLike[] {
  const errs = validateObjectMeta(obj, true, isDns1123Subdomain);
  const spec = objAt(obj, 'spec') ?? {};
  const int = (f: string, min: number, detail: string): void => {
    const v = spec[f];
    if (v === undefined || v === null) return;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > 2_147_483_647)
      errs.push({ type: 'FieldValueInvalid', field: `spec.${f}`, value: v, detail });
  };
  int('leaseDurationSeconds', 1, 'must be greater than 0');
  int('leaseTransitions', 0, 'must be greater than or equal to 0');
  for (const f of ['acquireTime', 'renewTime']) {
    const v = spec[f];
    if (
      v !== undefined &&
      v !== null &&
      (typeof v !== 'string' || !MICRO_TIME.test(v) || Number.isNaN(Date.parse(v)))
    ) {
      errs.push({
        type: 'FieldValueInvalid',
        field: `spec.${f}`,
        value: v,
        detail: 'must be a time in RFC 3339 format with microseconds',
      });
    }
  }
  for (const f of ['holderIdentity', 'strategy', 'preferredHolder']) {
    const v = spec[f];
    if (v !== undefined && v !== null && typeof v !== 'string')
      errs.push({
        type: 'FieldValueInvalid',
        field: `spec.${f}`,
        value: v,
        detail: 'must be a string',
      });
  }
  return errs;
}

export function leaseDef(coordinationGroup: string): ResourceDef {
  return {
    resource: 'leases',
    singularName: 'lease',
    group: coordinationGroup,
    version: 'v1',
    kind: 'Lease',
    listKind: 'LeaseList',
    namespaced: true,
    shortNames: [],
    subresources: [],
    allowCreateOnUpdate: false,
    returnDeletedObject: false,
    prepareForCreate: (obj) => {
      if (objAt(obj, 'spec') === undefined) obj['spec'] = {};
    },
    validateCreate: (obj) => validateLease(obj),
    prepareForUpdate: () => undefined,
    validateUpdate: (obj) => validateLease(obj),
  };
}
