// What Secrets and ConfigMaps share, as the reference validates them: data keys are config keys
// (alphanumerics, '-', '_', '.'; at most 253; not '.', '..' or '..'-prefixed), the total size is at
// most 1 MiB, and an object marked `immutable` keeps its data and stays immutable.

import type { FieldErrorLike } from '../../status.js';
import type { Obj } from '../types.js';
import { recordOf } from '../../../common/util/json-shape.js';

export const MAX_DATA_BYTES = 1024 * 1024;
const KEY = /^[-._a-zA-Z0-9]+$/;
const KEY_HELP =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. " +
  "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is " +
  "'[-._a-zA-Z0-9]+')";

export function configKeyErrors(key: string): string[] {
  const out: string[] = [];
  if (key.length > 253) out.push('must be no more than 253 characters');
  if (!KEY.test(key)) out.push(KEY_HELP);
  if (key === '.') out.push("must not be '.'");
  else if (key === '..') out.push("must not be '..'");
  else if (key.startsWith('..')) out.push("must not start with '..'");
  return out;
}

export function mapAt(obj: Obj, field: string): Record<string, unknown> {
  return recordOf(obj[field]);
}

/**
 * Key errors of one data map; `value` checks each value and returns its size in bytes or an error.
 */
export function validateDataMap(
  obj: Obj,
  field: string,
  value: (v: unknown) => number | string,
  errs: FieldErrorLike[],
): number {
  const raw = obj[field];
  if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
    errs.push({ type: 'FieldValueInvalid', field, value: raw, detail: 'must be a map of strings' });
    return 0;
  }
  let size = 0;
  for (const [k, v] of Object.entries(mapAt(obj, field))) {
    for (const msg of configKeyErrors(k))
      errs.push({ type: 'FieldValueInvalid', field: `${field}[${k}]`, value: k, detail: msg });
    const n = value(v);
    if (typeof n === 'string')
      errs.push({
        type: 'FieldValueInvalid',
        field: `${field}[${k}]`,
        value: '<value>',
        detail: n,
      });
    else size += n + k.length;
  }
  return size;
}

/** The reference's rules for an update of an object whose old version is immutable. */
export function validateImmutable(
  obj: Obj,
  old: Obj,
  dataFields: readonly string[],
  same: (a: unknown, b: unknown) => boolean,
): FieldErrorLike[] {
  if (old['immutable'] !== true) return [];
  const errs: FieldErrorLike[] = [];
  if (obj['immutable'] !== true)
    errs.push({
      type: 'FieldValueForbidden',
      field: 'immutable',
      detail: 'field is immutable when `immutable` is set',
    });
  for (const f of dataFields) {
    if (!same(obj[f], old[f]))
      errs.push({
        type: 'FieldValueForbidden',
        field: f,
        detail: 'field is immutable when `immutable` is set',
      });
  }
  return errs;
}
