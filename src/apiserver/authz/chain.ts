// Authentication and authorization chains. Authenticators are asked in order; the first that
// authenticates wins, a rejected credential gives 401 unless a later one accepts, and a request
// with an unrecognised bearer token is 401. Without any credential the request is anonymous
// (when --anonymous-auth) or 401. Authorizers: members of system:masters are always allowed (as
// the reference's privileged-group authorizer); then the configured chain, first decision wins.

import type { IncomingMessage } from 'node:http';
import type {
  Authenticator,
  Authorizer,
  AuthorizationDecision,
  PolicyRule,
  RequestAttributes,
  RuleResolver,
  SubjectRules,
} from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import { isRuleResolver } from '../authz/modes.js';
import { bearerToken } from '../../common/auth/bearer-token.js';

export { alwaysAllow, alwaysDeny } from '../authz/modes.js';

export const ANONYMOUS_USER: UserInfo = {
  username: 'system:anonymous',
  groups: ['system:unauthenticated'],
};

export type AuthnOutcome =
  { readonly ok: true; readonly user: UserInfo } | { readonly ok: false; readonly reason: string };

export class AuthenticatorChain {
  private readonly authenticators: readonly Authenticator[];
  private readonly anonymous: boolean;
  constructor(opts: { authenticators: readonly Authenticator[]; anonymous: boolean }) {
    this.authenticators = opts.authenticators;
    this.anonymous = opts.anonymous;
  }

  async authenticate(req: IncomingMessage): Promise<AuthnOutcome> {
    let rejected: string | undefined;
    for (const a of this.authenticators) {
      const r = await a.authenticate(req);
      if (r.kind === 'authenticated') return { ok: true, user: withAuthenticatedGroup(r.user) };
      if (r.kind === 'rejected') rejected ??= r.reason;
    }
    if (rejected !== undefined) return { ok: false, reason: rejected };
    if (bearerToken(req) !== undefined) return { ok: false, reason: 'invalid bearer token' };
    if (this.anonymous) return { ok: true, user: ANONYMOUS_USER };
    return { ok: false, reason: 'no credentials' };
  }
}

function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes('system:authenticated') || user.username === 'system:anonymous')
    return user;
  return { ...user, groups: [...user.groups, 'system:authenticated'] };
}

export class AuthorizerChain implements Authorizer, RuleResolver {
  private readonly authorizers: readonly Authorizer[];
  constructor(opts: { authorizers: readonly Authorizer[] }) {
    this.authorizers = opts.authorizers;
  }

  async authorize(attrs: RequestAttributes): Promise<AuthorizationDecision> {
    if (attrs.user.groups.includes('system:masters'))
      return { decision: 'allow', reason: 'system:masters' };
    let reasons: string[] = [];
    for (const a of this.authorizers) {
      const d = await a.authorize(attrs);
      if (d.decision !== 'no-opinion') return d;
      if (d.reason !== undefined && d.reason !== '') reasons = [...reasons, d.reason];
    }
    return reasons.length > 0
      ? { decision: 'no-opinion', reason: reasons.join(', ') }
      : { decision: 'no-opinion' };
  }

  /** The union of what each authorizer can list (the reference's union rule resolver). */
  async rulesFor(user: UserInfo, namespace: string): Promise<SubjectRules> {
    const resourceRules: PolicyRule[] = [];
    const nonResourceRules: PolicyRule[] = [];
    const errors: string[] = [];
    let incomplete = false;
    for (const a of this.authorizers) {
      if (!isRuleResolver(a)) {
        incomplete = true;
        errors.push('webhook authorizer does not support user rule resolution');
        continue;
      }
      const r = await a.rulesFor(user, namespace);
      resourceRules.push(...r.resourceRules);
      nonResourceRules.push(...r.nonResourceRules);
      if (r.incomplete) incomplete = true;
      if (r.evaluationError !== undefined && r.evaluationError !== '')
        errors.push(r.evaluationError);
    }
    const unique = [...new Set(errors)];
    const evaluationError =
      unique.length === 0 ? undefined : unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
    return {
      resourceRules,
      nonResourceRules,
      incomplete,
      ...(evaluationError !== undefined ? { evaluationError } : {}),
    };
  }
}
