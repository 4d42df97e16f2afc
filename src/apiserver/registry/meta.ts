// ObjectMeta rules shared by every resource: name validation (DNS-1123), generateName, labels and
// annotations, and the server-set fields on create and update (uid, creationTimestamp,
// immutable metadata), as the reference's rest.BeforeCreate/BeforeUpdate and ValidateObjectMeta.

import { randomUUID, randomInt } from 'node:crypto';
import type { FieldErrorLike } from '../status.js';
import {
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
} from '../../common/util/names.js';
import { metaOf, str, type Obj } from './types.js';
import { isRecord } from '../../common/util/json-shape.js';

export { isDns1123Label, isDns1123Subdomain };

/** IsValidPathSegmentName: a name that is valid as a URL path segment (and a storage key part). */
export function isPathSegmentName(v: string): string[] {
  if (v === '.' || v === '..') return [`may not be '${v}'`];
  return ['/', '%'].filter((c) => v.includes(c)).map((c) => `may not contain '${c}'`);
}

function validateStringMap(
  v: unknown,
  field: string,
  isValue: boolean,
  errs: FieldErrorLike[],
): void {
  if (v === undefined || v === null) return;
  if (!isRecord(v)) {
    errs.push({ type: 'FieldValueInvalid', field, value: v, detail: 'must be a map of strings' });
    return;
  }
  let total = 0;
  for (const [k, val] of Object.entries(v)) {
    for (const e of isQualifiedName(k))
      errs.push({ type: 'FieldValueInvalid', field, value: k, detail: e });
    if (typeof val !== 'string') {
      errs.push({ type: 'FieldValueInvalid', field, value: val, detail: 'must be a string' });
      continue;
    }
    total += k.length + val.length;
    if (isValue) {
      for (const e of isValidLabelValue(val))
        errs.push({ type: 'FieldValueInvalid', field, value: val, detail: e });
    }
  }
  if (!isValue && total > 256 * 1024) {
    errs.push({ type: 'FieldValueTooLong', field, detail: 'must have at most 262144 bytes' });
  }
}

/** ValidateObjectMeta: name (or generateName), namespace presence, labels, annotations. */
export function validateObjectMeta(
  obj: Obj,
  namespaced: boolean,
  nameRule: (n: string) => string[],
): FieldErrorLike[] {
  const meta = metaOf(obj);
  const errs: FieldErrorLike[] = [];
  const name = str(meta['name']) ?? '';
  if (name === '') {
    errs.push({
      type: 'FieldValueRequired',
      field: 'metadata.name',
      detail: 'name or generateName is required',
    });
  } else {
    for (const e of nameRule(name))
      errs.push({ type: 'FieldValueInvalid', field: 'metadata.name', value: name, detail: e });
  }
  const ns = str(meta['namespace']) ?? '';
  if (namespaced && ns === '')
    errs.push({ type: 'FieldValueRequired', field: 'metadata.namespace', detail: '' });
  if (!namespaced && ns !== '')
    errs.push({
      type: 'FieldValueForbidden',
      field: 'metadata.namespace',
      detail: 'not allowed on this type',
    });
  validateStringMap(meta['labels'], 'metadata.labels', true, errs);
  validateStringMap(meta['annotations'], 'metadata.annotations', false, errs);
  const finalizers = meta['finalizers'];
  if (finalizers !== undefined && finalizers !== null) {
    if (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== 'string')) {
      errs.push({
        type: 'FieldValueInvalid',
        field: 'metadata.finalizers',
        value: finalizers,
        detail: 'must be a list of strings',
      });
    }
  }
  return errs;
}

const nameSuffixAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** The reference's SimpleNameGenerator: generateName (cut to 58) plus 5 random characters. */
export function generateName(base: string): string {
  const prefix = base.length > 58 ? base.slice(0, 58) : base;
  let suffix = '';
  for (let i = 0; i < 5; i++)
    suffix += nameSuffixAlphabet.charAt(randomInt(nameSuffixAlphabet.length));
  return prefix + suffix;
}

/** RFC 3339 with seconds precision, as metav1.Time serializes. */
export function timeString(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

/** RFC 3339 with microseconds, as metav1.MicroTime serializes. */
export function microTimeString(d: Date): string {
  return `${d.toISOString().slice(0, 23)}000Z`;
}

/** BeforeCreate: server-set metadata. */
export function prepareMetaForCreate(obj: Obj, now: Date): void {
  const meta = metaOf(obj);
  meta['uid'] = randomUUID();
  meta['creationTimestamp'] = timeString(now);
  delete meta['deletionTimestamp'];
  delete meta['deletionGracePeriodSeconds'];
  delete meta['selfLink'];
  if (meta['labels'] === null) delete meta['labels'];
  if (meta['annotations'] === null) delete meta['annotations'];
}

/**
 * BeforeUpdate: metadata the client may not change is kept from the stored object. A changed uid
 * is an error; creationTimestamp is silently reset to the stored one whatever the client sent
 * (the reference: "ignore changes to timestamp"), so a re-serialised form of it is no change.
 */
export function validateMetaUpdate(obj: Obj, old: Obj): FieldErrorLike[] {
  const meta = metaOf(obj);
  const oldMeta = metaOf(old);
  const errs: FieldErrorLike[] = [];
  const uid = meta['uid'];
  if (uid === undefined || uid === null || uid === '') meta['uid'] = oldMeta['uid'];
  else if (uid !== oldMeta['uid'])
    errs.push({
      type: 'FieldValueInvalid',
      field: 'metadata.uid',
      value: uid,
      detail: 'field is immutable',
    });
  if (oldMeta['creationTimestamp'] !== undefined && oldMeta['creationTimestamp'] !== null)
    meta['creationTimestamp'] = oldMeta['creationTimestamp'];
  for (const f of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
    if (oldMeta[f] === undefined) Reflect.deleteProperty(meta, f);
    else meta[f] = oldMeta[f];
  }
  delete meta['selfLink'];
  return errs;
}
