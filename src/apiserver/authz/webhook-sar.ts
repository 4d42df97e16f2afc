// The status of a SubjectAccessReview answer (v1 and v1beta1) from an authorization webhook; the
// request body is common/auth/subject-access-review.ts's, as the agent sends it too.
import { recordOf } from '../../common/util/json-shape.js';

export interface SarStatus {
  allowed: boolean;
  denied: boolean;
  reason: string;
  evaluationError: string;
}

/** Reads `status` of a SubjectAccessReview response; throws on a malformed one. */
export function parseSarStatus(
  body: unknown,
  version: 'v1' | 'v1beta1',
  platformDomain: string,
): SarStatus {
  if (body === null || typeof body !== 'object')
    throw new Error('the response is not a JSON object');
  const b = recordOf(body);
  const want = `authorization.${platformDomain}/${version}`;
  if (b['kind'] !== 'SubjectAccessReview')
    throw new Error(
      `the response kind is ${JSON.stringify(b['kind'])}, expected "SubjectAccessReview"`,
    );
  if (b['apiVersion'] !== want)
    throw new Error(
      `the response apiVersion is ${JSON.stringify(b['apiVersion'])}, expected ` +
        JSON.stringify(want),
    );
  const s = b['status'];
  if (s === null || typeof s !== 'object') throw new Error('the response has no status');
  const st = recordOf(s);
  if (typeof st['allowed'] !== 'boolean')
    throw new Error('the response status.allowed is not a boolean');
  return {
    allowed: st['allowed'],
    denied: st['denied'] === true,
    reason: typeof st['reason'] === 'string' ? st['reason'] : '',
    evaluationError: typeof st['evaluationError'] === 'string' ? st['evaluationError'] : '',
  };
}
