// The authorizer chain: members of system:masters are always allowed (as the reference's
// privileged-group authorizer); then the configured authorizers in order, the first allow or deny
// decides, and the rules a subject may list are the union of each authorizer's.

import type {
  Authorizer,
  AuthorizationDecision,
  PolicyRule,
  RequestAttributes,
  RuleResolver,
  SubjectRules,
} from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import { isRuleResolver } from './modes.js';

export { alwaysAllow, alwaysDeny } from './modes.js';

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
