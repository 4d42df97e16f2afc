// ServiceAccount (core/v1, namespaced, with the `token` subresource: TokenRequest, served by
// serviceaccount/token-request.ts). The reference's ValidateServiceAccount: the name is a DNS-1123
// subdomain, and the secrets and imagePullSecrets it lists are named.

import type { FieldErrorLike } from '../../status.js';
import { isRecord, listOf } from '../../../common/util/json-shape.js';
import { validateObjectMeta, isDns1123Subdomain } from '../meta.js';
import type { Obj, ResourceDef } from '../types.js';

function validateRefs(obj: Obj, field: 'secrets' | 'imagePullSecrets'): FieldErrorLike[] {
  const v = obj[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v))
    return [{ type: 'FieldValueInvalid', field, value: v, detail: 'must be a list' }];
  const errs: FieldErrorLike[] = [];
  listOf(v).forEach((ref, i) => {
    if (!isRecord(ref))
      errs.push({
        type: 'FieldValueInvalid',
        field: `${field}[${i}]`,
        value: ref,
        detail: 'must be an object',
      });
  });
  return errs;
}

function validateServiceAccount(obj: Obj): FieldErrorLike[] {
  const errs = validateObjectMeta(obj, true, isDns1123Subdomain);
  errs.push(...validateRefs(obj, 'secrets'), ...validateRefs(obj, 'imagePullSecrets'));
  const auto = obj['automountServiceAccountToken'];
  if (auto !== undefined && auto !== null && typeof auto !== 'boolean')
    errs.push({
      type: 'FieldValueInvalid',
      field: 'automountServiceAccountToken',
      value: auto,
      detail: 'must be a boolean',
    });
  return errs;
}

/** ServiceAccount, its token subresource a TokenRequest of `authenticationGroup`/v1. */
export const serviceAccountDef = (authenticationGroup: string): ResourceDef => ({
  resource: 'serviceaccounts',
  singularName: 'serviceaccount',
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  listKind: 'ServiceAccountList',
  namespaced: true,
  shortNames: ['sa'],
  subresources: ['token'],
  actionSubresources: { token: { kind: 'TokenRequest', group: authenticationGroup } },
  allowCreateOnUpdate: false,
  returnDeletedObject: false,
  prepareForCreate: () => undefined,
  validateCreate: (obj) => validateServiceAccount(obj),
  prepareForUpdate: () => undefined,
  validateUpdate: (obj) => validateServiceAccount(obj),
});
