// The RBAC authorizer, as the reference's (plugin/pkg/auth/authorizer/rbac): the rules of every
// ClusterRoleBinding, then of every RoleBinding in the request's namespace, that name the user,
// one of their groups or their service account. A matching rule allows; otherwise there is no
// opinion (RBAC never denies), with the role references it could not resolve as the reason.

import type {
  AuthorizationDecision,
  Authorizer,
  RequestAttributes,
  RuleResolver,
  SubjectRules,
} from '../../interfaces.js';
import type { UserInfo } from '../../../common/auth/user.js';
import { metaOf, objAt, str, type Obj } from '../../registry/types.js';
import type { RbacCache } from './cache.js';
import { ruleAllows, rulesOf, type PolicyRule } from './rules.js';
import { listOf, isRecord } from '../../../common/util/json-shape.js';

interface RoleRef {
  readonly kind: string;
  readonly name: string;
}

/**
 * Visits each rule that applies to the user; return false to stop. `source` describes the binding.
 */
type Visitor = (source: string, rule: PolicyRule | undefined, err: string | undefined) => boolean;

/**
 * A subject's namespace, or the binding's when it names none (absent or empty), as the reference.
 */
function orWhenEmpty(v: string | undefined, fallback: string): string {
  return v === undefined || v === '' ? fallback : v;
}

function describeSubject(s: Obj, bindingNamespace: string): string {
  const kind = str(s['kind']) ?? '';
  const name = str(s['name']) ?? '';
  if (kind === 'ServiceAccount')
    return (
      `${kind} ` + JSON.stringify(`${name}/${orWhenEmpty(str(s['namespace']), bindingNamespace)}`)
    );
  return `${kind} ${JSON.stringify(name)}`;
}

function appliesTo(user: UserInfo, s: Obj, namespace: string): boolean {
  const kind = str(s['kind']);
  const name = str(s['name']) ?? '';
  if (kind === 'User') return user.username === name;
  if (kind === 'Group') return user.groups.includes(name);
  if (kind === 'ServiceAccount') {
    const ns = orWhenEmpty(str(s['namespace']), namespace);
    return ns !== '' && user.username === `system:serviceaccount:${ns}:${name}`;
  }
  return false;
}

export class RbacAuthorizer implements Authorizer, RuleResolver {
  private readonly cache: RbacCache;
  private readonly group: string;

  constructor(o: { cache: RbacCache; rbacGroup: string }) {
    this.cache = o.cache;
    this.group = o.rbacGroup;
  }

  /** The rules a role reference grants, or the reference's NotFound text. */
  roleRefRules(ref: RoleRef, namespace: string): { rules: PolicyRule[] } | { error: string } {
    const role =
      ref.kind === 'ClusterRole'
        ? this.cache.clusterRole(ref.name)
        : ref.kind === 'Role'
          ? this.cache.role(namespace, ref.name)
          : undefined;
    if (role === undefined)
      return {
        error: `${ref.kind.toLowerCase()}.${this.group} ${JSON.stringify(ref.name)} not found`,
      };
    return { rules: rulesOf(role['rules']) };
  }

  private visitBinding(
    b: Obj,
    kind: 'ClusterRoleBinding' | 'RoleBinding',
    user: UserInfo,
    namespace: string,
    visit: Visitor,
  ): boolean {
    const subjects = listOf(b['subjects']);
    const bindingNs = str(metaOf(b)['namespace']) ?? '';
    const subject = subjects
      .filter(isRecord)
      .find((s) => appliesTo(user, s, bindingNs || namespace));
    if (subject === undefined) return true;
    const ref = objAt(b, 'roleRef') ?? {};
    const roleRef = { kind: str(ref['kind']) ?? '', name: str(ref['name']) ?? '' };
    const got = this.roleRefRules(roleRef, bindingNs);
    if ('error' in got) return visit('', undefined, got.error);
    const name =
      kind === 'RoleBinding'
        ? `${bindingNs}/${str(metaOf(b)['name']) ?? ''}`
        : (str(metaOf(b)['name']) ?? '');
    const source =
      `${kind} ${JSON.stringify(name)} of ${roleRef.kind} ${JSON.stringify(roleRef.name)} ` +
      `to ${describeSubject(subject, bindingNs)}`;
    for (const rule of got.rules) if (!visit(source, rule, undefined)) return false;
    return true;
  }

  private visitRules(user: UserInfo, namespace: string, visit: Visitor): void {
    for (const b of this.cache.clusterRoleBindings())
      if (!this.visitBinding(b, 'ClusterRoleBinding', user, '', visit)) return;
    if (namespace === '') return;
    for (const b of this.cache.roleBindings(namespace))
      if (!this.visitBinding(b, 'RoleBinding', user, namespace, visit)) return;
  }

  authorize(attrs: RequestAttributes): Promise<AuthorizationDecision> {
    let allowedBy: string | undefined;
    const errors: string[] = [];
    this.visitRules(attrs.user, attrs.namespace, (source, rule, err) => {
      if (err !== undefined) errors.push(err);
      if (rule !== undefined && ruleAllows(attrs, rule)) {
        allowedBy = source;
        return false;
      }
      return true;
    });
    if (allowedBy !== undefined)
      return Promise.resolve({ decision: 'allow', reason: `RBAC: allowed by ${allowedBy}` });
    if (errors.length === 0) return Promise.resolve({ decision: 'no-opinion' });
    return Promise.resolve({ decision: 'no-opinion', reason: `RBAC: ${aggregate(errors)}` });
  }

  /**
   * Every rule the user holds in the namespace (cluster-wide ones included), and what could not be
   * resolved.
   */
  heldRules(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRules(user, namespace, (_source, rule, err) => {
      if (err !== undefined) errors.push(err);
      if (rule !== undefined) rules.push(rule);
      return true;
    });
    return { rules, errors };
  }

  rulesFor(user: UserInfo, namespace: string): Promise<SubjectRules> {
    const { rules, errors } = this.heldRules(user, namespace);
    const out: SubjectRules = {
      resourceRules: rules.filter((r) => r.resources.length > 0 || r.apiGroups.length > 0),
      nonResourceRules: rules.filter((r) => r.nonResourceURLs.length > 0),
      incomplete: errors.length > 0,
      ...(errors.length > 0 ? { evaluationError: aggregate(errors) } : {}),
    };
    return Promise.resolve(out);
  }
}

/** The reference's utilerrors aggregate text: one message alone, several as `[a, b]`. */
export function aggregate(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? (unique[0] ?? '') : `[${unique.join(', ')}]`;
}
