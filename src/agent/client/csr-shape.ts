// The CertificateSigningRequest answer as a type guard, as strict as its zod schema
// (csr-schema.ts): the bootstrap decodes well-formed CSRs without loading zod, and any other
// answer goes through the schema for its error.
import { isRecord, isStringList } from '../../common/util/json-shape.js';
import { isNumber, isObjectMeta, isString, optional } from './meta-shape.js';
import type { CertificateSigningRequest } from './csr-types.js';

const CONDITION_STATUSES = new Set<unknown>(['True', 'False', 'Unknown']);
const CONDITION_STRINGS = ['reason', 'message', 'lastUpdateTime', 'lastTransitionTime'];

function isCondition(v: unknown): boolean {
  return (
    isRecord(v) &&
    isString(v.type) &&
    CONDITION_STATUSES.has(v.status) &&
    CONDITION_STRINGS.every((k) => optional(v, k, isString))
  );
}

function isExtra(v: unknown): boolean {
  return isRecord(v) && Object.values(v).every(isStringList);
}

function isSpec(v: unknown): boolean {
  return (
    isRecord(v) &&
    isString(v.request) &&
    isString(v.signerName) &&
    optional(v, 'expirationSeconds', isNumber) &&
    optional(v, 'usages', isStringList) &&
    optional(v, 'username', isString) &&
    optional(v, 'uid', isString) &&
    optional(v, 'groups', isStringList) &&
    optional(v, 'extra', isExtra)
  );
}

function isStatus(v: unknown): boolean {
  return (
    isRecord(v) &&
    optional(v, 'certificate', isString) &&
    optional(v, 'conditions', (c) => Array.isArray(c) && c.every(isCondition))
  );
}

export function isCertificateSigningRequest(v: unknown): v is CertificateSigningRequest {
  return (
    isRecord(v) &&
    optional(v, 'apiVersion', isString) &&
    optional(v, 'kind', isString) &&
    optional(v, 'metadata', isObjectMeta) &&
    isSpec(v.spec) &&
    optional(v, 'status', isStatus)
  );
}
