// TokenReview and SubjectAccessReview over the agent's REST client: the API server answers for
// its own users (POST /apis/authentication.{domain}/v1/tokenreviews and
// /apis/authorization.{domain}/v1/subjectaccessreviews). One attempt per call: the caller turns
// a failure into a 500 and the next request asks again.

import type { Names } from '../../common/names.js';
import type { RestClient } from '../client/rest-client.js';
import type {
  SubjectAccessReviewSpec,
  SubjectAccessReviewStatus,
  SubjectAccessReviewer,
  TokenReviewStatus,
  TokenReviewer,
  UserInfo,
} from './types.js';

interface ReviewResponse<S> {
  status?: S;
}

export class ApiTokenReviewer implements TokenReviewer {
  constructor(private readonly o: { rest: RestClient; names: Names; audiences?: readonly string[] }) {}

  async review(token: string, signal?: AbortSignal): Promise<TokenReviewStatus> {
    const group = this.o.names.groups.authentication;
    const out = await this.o.rest.request<ReviewResponse<{ authenticated?: boolean; user?: Partial<UserInfo>; error?: string; audiences?: string[] }>>({
      method: 'POST',
      path: `/apis/${group}/v1/tokenreviews`,
      body: { apiVersion: `${group}/v1`, kind: 'TokenReview', spec: { token, ...(this.o.audiences ? { audiences: this.o.audiences } : {}) } },
      retry: false,
      ...(signal !== undefined ? { signal } : {}),
    });
    const s = out.status ?? {};
    if (s.authenticated !== true || s.user?.username === undefined) return { authenticated: false, ...(s.error !== undefined ? { error: s.error } : {}) };
    return {
      authenticated: true,
      user: {
        username: s.user.username,
        groups: s.user.groups ?? [],
        ...(s.user.uid !== undefined ? { uid: s.user.uid } : {}),
        ...(s.user.extra !== undefined ? { extra: s.user.extra } : {}),
      },
    };
  }
}

export class ApiSubjectAccessReviewer implements SubjectAccessReviewer {
  constructor(private readonly o: { rest: RestClient; names: Names }) {}

  async review(spec: SubjectAccessReviewSpec, signal?: AbortSignal): Promise<SubjectAccessReviewStatus> {
    const group = this.o.names.groups.authorization;
    const out = await this.o.rest.request<ReviewResponse<SubjectAccessReviewStatus>>({
      method: 'POST',
      path: `/apis/${group}/v1/subjectaccessreviews`,
      body: { apiVersion: `${group}/v1`, kind: 'SubjectAccessReview', spec },
      retry: false,
      ...(signal !== undefined ? { signal } : {}),
    });
    const s = out.status;
    if (s === undefined || typeof s.allowed !== 'boolean') throw new Error('the API server answered a SubjectAccessReview without status.allowed');
    return s;
  }
}
