// Secret (core/v1, namespaced): `data` holds base64 values, `stringData` is write-only and merged
// into `data` on every write (it wins over `data`, as the reference's conversion), `type`
// defaults to Opaque and never changes. Encryption at rest applies through the store's
// transformers (resource `secrets`).

import { isDeepStrictEqual } from 'node:util';
import type { FieldErrorLike } from '../../status.js';
import { validateObjectMeta, isDns1123Subdomain } from '../meta.js';
import type { Obj, ResourceDef } from '../types.js';
import { isRecord } from '../../../common/util/json-shape.js';
import { MAX_DATA_BYTES, mapAt, validateDataMap, validateImmutable } from './config-data.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function base64Size(v: unknown): number | string {
  if (typeof v !== 'string') return 'must be a base64-encoded string';
  if (!BASE64.test(v)) return 'illegal base64 data';
  return Buffer.byteLength(v, 'base64');
}

/** Moves stringData into data (base64); a non-map stringData is left for validation to report. */
function mergeStringData(obj: Obj): void {
  const sd = obj['stringData'];
  if (sd === undefined || sd === null) {
    delete obj['stringData'];
    return;
  }
  if (!isRecord(sd) || Object.values(sd).some((v) => typeof v !== 'string')) return;
  const data = { ...mapAt(obj, 'data') };
  for (const [k, v] of Object.entries(sd)) {
    if (typeof v === 'string') data[k] = Buffer.from(v, 'utf8').toString('base64');
  }
  obj['data'] = data;
  delete obj['stringData'];
}

function validateSecret(obj: Obj): FieldErrorLike[] {
  const errs = validateObjectMeta(obj, true, isDns1123Subdomain);
  if (obj['stringData'] !== undefined)
    errs.push({
      type: 'FieldValueInvalid',
      field: 'stringData',
      value: obj['stringData'],
      detail: 'must be a map of strings',
    });
  const size = validateDataMap(obj, 'data', base64Size, errs);
  if (size > MAX_DATA_BYTES)
    errs.push({
      type: 'FieldValueTooLong',
      field: 'data',
      detail: `must have at most ${MAX_DATA_BYTES} bytes`,
    });
  if (typeof obj['type'] !== 'string')
    errs.push({
      type: 'FieldValueInvalid',
      field: 'type',
      value: obj['type'],
      detail: 'must be a string',
    });
  if (obj['immutable'] !== undefined && typeof obj['immutable'] !== 'boolean')
    errs.push({
      type: 'FieldValueInvalid',
      field: 'immutable',
      value: obj['immutable'],
      detail: 'must be a boolean',
    });
  return errs;
}

export const secretDef: ResourceDef = {
  resource: 'secrets',
  singularName: 'secret',
  group: '',
  version: 'v1',
  kind: 'Secret',
  listKind: 'SecretList',
  namespaced: true,
  shortNames: [],
  subresources: [],
  allowCreateOnUpdate: false,
  returnDeletedObject: false,
  prepareForCreate: (obj) => {
    mergeStringData(obj);
    if (obj['type'] === undefined || obj['type'] === '') obj['type'] = 'Opaque';
  },
  validateCreate: (obj) => validateSecret(obj),
  prepareForUpdate: (obj: Obj) => {
    mergeStringData(obj);
    if (obj['type'] === undefined || obj['type'] === '') obj['type'] = 'Opaque';
  },
  validateUpdate: (obj, old) => {
    const errs = validateSecret(obj);
    if (obj['type'] !== old['type'])
      errs.push({
        type: 'FieldValueInvalid',
        field: 'type',
        value: obj['type'],
        detail: 'field is immutable',
      });
    return [
      ...errs,
      ...validateImmutable(obj, old, ['data'], (a, b) => isDeepStrictEqual(a ?? {}, b ?? {})),
    ];
  },
};
