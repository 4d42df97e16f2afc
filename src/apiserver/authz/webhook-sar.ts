// SubjectAccessReview bodies (v1 and v1beta1) built from request attributes, and the v1 view
// that match conditions see as `request`.
import type { SarSpecV1 } from '../../common/auth/subject-access-review.js';
import { recordOf } from '../../common/util/json-shape.js';

/** The request body for the configured version (v1beta1 names the groups field `group`). */
export function sarBody(spec: SarSpecV1, version: 'v1' | 'v1beta1', platformDomain: string): Record<string, unknown> {
  const apiVersion = `authorization.${platformDomain}/${version}`;
  if (version === 'v1') return { apiVersion, kind: 'SubjectAccessReview', spec };
  const { groups, ...rest } = spec;
  return { apiVersion, kind: 'SubjectAccessReview', spec: { ...rest, group: groups } };
}

export interface SarStatus {
  allowed: boolean;
  denied: boolean;
  reason: string;
  evaluationError: string;
}

/** Reads `status` of a SubjectAccessReview response; throws on a malformed one. */
export function parseSarStatus(body: unknown, version: 'v1' | 'v1beta1', platformDomain: string): SarStatus {
  if (body === null || typeof body !== 'object') throw new Error('the response is not a JSON object');
  const b = recordOf(body);
  const want = `authorization.${platformDomain}/${version}`;
  if (b['kind'] !== 'SubjectAccessReview') throw new Error(`the response kind is ${JSON.stringify(b['kind'])}, expected "SubjectAccessReview"`);
  if (b['apiVersion'] !== want) throw new Error(`the response apiVersion is ${JSON.stringify(b['apiVersion'])}, expected ${JSON.stringify(want)}`);
  const s = b['status'];
  if (s === null || typeof s !== 'object') throw new Error('the response has no status');
  const st = recordOf(s);
  if (typeof st['allowed'] !== 'boolean') throw new Error('the response status.allowed is not a boolean');
  return {
    allowed: st['allowed'],
    denied: st['denied'] === true,
    reason: typeof st['reason'] === 'string' ? st['reason'] : '',
    evaluationError: typeof st['evaluationError'] === 'string' ? st['evaluationError'] : '',
  };
}
