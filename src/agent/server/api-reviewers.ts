// TokenReview and SubjectAccessReview over the agent's REST client: the API server answers for
// its own users (POST /apis/authentication.{domain}/v1/tokenreviews and
// /apis/authorization.{domain}/v1/subjectaccessreviews). One attempt per call: the caller turns
// a failure into a 500 and the next request asks again.

import { z } from 'zod';
import { sarRequestBody } from '../../common/auth/subject-access-review.js';
import type { Names } from '../../common/names.js';
import type { RestClient } from '../client/rest-client.js';
import { decodeAnswer } from '../client/api-schemas.js';
import type {
  SubjectAccessReviewSpec,
  SubjectAccessReviewStatus,
  SubjectAccessReviewer,
  TokenReviewStatus,
  TokenReviewer,
} from './types.js';

const optionalString = z.string().exactOptional();

/** A TokenReview answer: the status fields the agent reads. */
const TokenReviewSchema = z.looseObject({
  status: z
    .looseObject({
      authenticated: z.boolean().exactOptional(),
      user: z
        .looseObject({
          username: optionalString,
          uid: optionalString,
          groups: z.array(z.string()).exactOptional(),
          extra: z.record(z.string(), z.array(z.string())).exactOptional(),
        })
        .exactOptional(),
      error: optionalString,
      audiences: z.array(z.string()).exactOptional(),
    })
    .exactOptional(),
});

/**
 * A SubjectAccessReview answer: status.allowed is required (the reference's field is not
 * omitempty).
 */
const SubjectAccessReviewSchema = z.looseObject({
  status: z.looseObject({
    allowed: z.boolean(),
    denied: z.boolean().exactOptional(),
    reason: optionalString,
    evaluationError: optionalString,
  }),
});

/**
 * POSTs a review to /apis/{group}/v1/{resource} (one attempt) and decodes the answer with `schema`.
 */
async function postReview<T>(
  rest: RestClient,
  r: {
    group: string;
    resource: string;
    kind: string;
    body: object;
    schema: z.ZodType<T>;
    signal: AbortSignal | undefined;
  },
): Promise<T> {
  const path = `/apis/${r.group}/v1/${r.resource}`;
  const answer = await rest.request({
    method: 'POST',
    path,
    body: r.body,
    retry: false,
    ...(r.signal !== undefined ? { signal: r.signal } : {}),
  });
  return decodeAnswer(r.schema, answer, `POST ${path}`, r.kind);
}

export class ApiTokenReviewer implements TokenReviewer {
  constructor(
    private readonly o: { rest: RestClient; names: Names; audiences?: readonly string[] },
  ) {}

  async review(token: string, signal?: AbortSignal): Promise<TokenReviewStatus> {
    const group = this.o.names.groups.authentication;
    const body = {
      apiVersion: `${group}/v1`,
      kind: 'TokenReview',
      spec: { token, ...(this.o.audiences ? { audiences: this.o.audiences } : {}) },
    };
    const s =
      (
        await postReview(this.o.rest, {
          group,
          resource: 'tokenreviews',
          kind: 'TokenReview',
          body,
          schema: TokenReviewSchema,
          signal,
        })
      ).status ?? {};
    if (s.authenticated !== true || s.user?.username === undefined)
      return { authenticated: false, ...(s.error !== undefined ? { error: s.error } : {}) };
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

  async review(
    spec: SubjectAccessReviewSpec,
    signal?: AbortSignal,
  ): Promise<SubjectAccessReviewStatus> {
    const group = this.o.names.groups.authorization;
    const body = sarRequestBody(spec, group);
    return (
      await postReview(this.o.rest, {
        group,
        resource: 'subjectaccessreviews',
        kind: 'SubjectAccessReview',
        body,
        schema: SubjectAccessReviewSchema,
        signal,
      })
    ).status;
  }
}
