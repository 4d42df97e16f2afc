// The review endpoints: POST of a TokenReview, SelfSubjectReview, SubjectAccessReview,
// LocalSubjectAccessReview, SelfSubjectAccessReview or SelfSubjectRulesReview, answered at once
// and never stored. `reviewFor` picks the review a path names.
import type { UserInfo } from '../../common/auth/user.js';
import type { AuthenticatorChain } from '../authn/union.js';
import type { AuthorizerChain } from '../authz/chain.js';
import { subjectAccessReview, tokenReview } from './reviews.js';
import {
  selfSubjectAccessReview,
  selfSubjectReview,
  selfSubjectRulesReview,
} from './self-reviews.js';

export interface Review {
  readonly kind: string;
  readonly apiVersion: string;
  run(body: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** What the reviews ask: the server's authenticators and authorizer chain. */
export interface ReviewContext {
  readonly platformDomain: string;
  readonly authn: AuthenticatorChain;
  readonly authorizer: AuthorizerChain;
  /** --api-audiences: the audiences of tokens authenticated here (see tokenReview). */
  readonly apiAudiences: readonly string[];
}

/** The review `path` names, for `user`; undefined when it names none. */
export function reviewFor(ctx: ReviewContext, path: string, user: UserInfo): Review | undefined {
  const d = ctx.platformDomain;
  const authn = `authentication.${d}`;
  const authz = `authorization.${d}`;
  const m = /^\/apis\/([^/]+)\/v1\/(?:namespaces\/([^/]+)\/)?([a-z]+)$/.exec(path);
  const group = m?.[1];
  const namespace = m?.[2];
  const resource = m?.[3];
  if (group === authz && resource === 'localsubjectaccessreviews' && namespace !== undefined) {
    return {
      kind: 'LocalSubjectAccessReview',
      apiVersion: `${authz}/v1`,
      run: (b) => subjectAccessReview(b, ctx.authorizer, d, { namespace }),
    };
  }
  if (namespace !== undefined) return undefined;
  if (group === authn) return authenticationReview(ctx, resource, user);
  if (group === authz) return authorizationReview(ctx, resource, user);
  return undefined;
}

function authenticationReview(
  ctx: ReviewContext,
  resource: string | undefined,
  user: UserInfo,
): Review | undefined {
  const d = ctx.platformDomain;
  const authn = `authentication.${d}`;
  if (resource === 'tokenreviews')
    return {
      kind: 'TokenReview',
      apiVersion: `${authn}/v1`,
      run: (b) => tokenReview(b, ctx.authn, d, ctx.apiAudiences),
    };
  if (resource === 'selfsubjectreviews')
    return {
      kind: 'SelfSubjectReview',
      apiVersion: `${authn}/v1`,
      run: () => Promise.resolve(selfSubjectReview(user, authn)),
    };
  return undefined;
}

function authorizationReview(
  ctx: ReviewContext,
  resource: string | undefined,
  user: UserInfo,
): Review | undefined {
  const d = ctx.platformDomain;
  const authz = `authorization.${d}`;
  if (resource === 'subjectaccessreviews')
    return {
      kind: 'SubjectAccessReview',
      apiVersion: `${authz}/v1`,
      run: (b) => subjectAccessReview(b, ctx.authorizer, d),
    };
  if (resource === 'selfsubjectaccessreviews')
    return {
      kind: 'SelfSubjectAccessReview',
      apiVersion: `${authz}/v1`,
      run: (b) => selfSubjectAccessReview(b, user, ctx.authorizer, authz),
    };
  if (resource === 'selfsubjectrulesreviews')
    return {
      kind: 'SelfSubjectRulesReview',
      apiVersion: `${authz}/v1`,
      run: (b) => selfSubjectRulesReview(b, user, ctx.authorizer, authz),
    };
  return undefined;
}
