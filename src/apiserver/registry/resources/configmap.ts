// ConfigMap (core/v1, namespaced): `data` (strings) and `binaryData` (base64) with distinct keys,
// 1 MiB in all, and the `immutable` rules shared with Secrets.

import { isDeepStrictEqual } from 'node:util';
import type { FieldErrorLike } from '../../status.js';
import { validateObjectMeta, isDns1123Subdomain } from '../meta.js';
import type { Obj, ResourceDef } from '../types.js';
import { MAX_DATA_BYTES, mapAt, validateDataMap, validateImmutable } from './config-data.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function validateConfigMap(obj: Obj): FieldErrorLike[] {
  const errs = validateObjectMeta(obj, true, isDns1123Subdomain);
  const text = validateDataMap(
    obj,
    'data',
    (v) => (typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : 'must be a string'),
    errs,
  );
  const binary = validateDataMap(
    obj,
    'binaryData',
    (v) =>
      typeof v !== 'string'
        ? 'must be a base64-encoded string'
        : BASE64.test(v)
          ? Buffer.byteLength(v, 'base64')
          : 'illegal base64 data',
    errs,
  );
  const data = mapAt(obj, 'data');
  for (const k of Object.keys(mapAt(obj, 'binaryData'))) {
    if (k in data)
      errs.push({
        type: 'FieldValueInvalid',
        field: `data[${k}]`,
        value: k,
        detail: 'duplicate of key present in binaryData',
      });
  }
  if (text + binary > MAX_DATA_BYTES)
    errs.push({
      type: 'FieldValueTooLong',
      field: '',
      detail: `must have at most ${MAX_DATA_BYTES} bytes`,
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

export const configMapDef: ResourceDef = {
  resource: 'configmaps',
  singularName: 'configmap',
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  namespaced: true,
  shortNames: ['cm'],
  subresources: [],
  allowCreateOnUpdate: false,
  returnDeletedObject: false,
  prepareForCreate: () => undefined,
  validateCreate: (obj) => validateConfigMap(obj),
  prepareForUpdate: () => undefined,
  validateUpdate: (obj, old) => [
    ...validateConfigMap(obj),
    ...validateImmutable(obj, old, ['data', 'binaryData'], (a, b) =>
      isDeepStrictEqual(a ?? {}, b ?? {}),
    ),
  ],
};
