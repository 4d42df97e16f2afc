// The reference's escalation check on RBAC writes (pkg/registry/rbac/*/policybased): nobody
// creates or updates a Role or ClusterRole with rules they do not hold unless they may `escalate`
// it, and nobody binds a role whose rules they do not hold unless they may `bind` it. Members of
// system:masters pass. Run as an admission plugin on the RBAC resources, so every write (REST
// and in-process) goes through it.

import type { AdmissionPlugin, AdmissionRequest, Authorizer } from '../../interfaces.js';
import type { UserInfo } from '../../../common/auth/user.js';
import { forbidden, notFound, type StatusError } from '../../status.js';
import { objAt, str, type Obj } from '../../registry/types.js';
import type { RbacAuthorizer } from './authorizer.js';
import {
  compactRules,
  compactString,
  goQuotedList,
  rulesOf,
  uncoveredRules,
  type PolicyRule,
} from './rules.js';

const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [], nonResourceURLs: [] },
  { verbs: ['*'], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: ['*'] },
];

export interface EscalationCheckOptions {
  readonly rbacGroup: string;
  readonly rbac: RbacAuthorizer;
  /** The server's whole authorizer chain (escalate and bind may come from any authorizer). */
  readonly authorizer: Authorizer;
}

export class RbacEscalationCheck implements AdmissionPlugin {
  readonly name = 'RBACEscalation';
  private readonly o: EscalationCheckOptions;

  constructor(o: EscalationCheckOptions) {
    this.o = o;
  }

  /**
   * In the mutating phase, before validation: the reference checks escalation in its
   * policy-based RBAC storage, ahead of the strategy's validation and of validating admission.
   */
  readonly mutating = true;

  async admit(r: AdmissionRequest): Promise<void> {
    if (r.apiGroup !== this.o.rbacGroup || r.subresource !== '' || r.object === undefined) return;
    if (r.operation !== 'CREATE' && r.operation !== 'UPDATE') return;
    if (r.user.groups.includes('system:masters')) return;
    if (r.resource === 'roles' || r.resource === 'clusterroles') await this.checkRole(r, r.object);
    else if (r.resource === 'rolebindings' || r.resource === 'clusterrolebindings')
      await this.checkBinding(r, r.object);
  }

  private async allowed(
    user: UserInfo,
    verb: string,
    resource: string,
    namespace: string,
    name: string,
  ): Promise<boolean> {
    const d = await this.o.authorizer.authorize({
      user,
      verb,
      isResourceRequest: true,
      path: '',
      apiGroup: this.o.rbacGroup,
      apiVersion: 'v1',
      resource,
      subresource: '',
      namespace,
      name,
    });
    return d.decision === 'allow';
  }

  private async checkRole(r: AdmissionRequest, obj: Obj): Promise<void> {
    if (await this.allowed(r.user, 'escalate', r.resource, r.namespace, r.name)) return;
    const missing = this.escalation(r.user, r.namespace, rulesOf(obj['rules']));
    if (missing !== undefined) throw this.forbidden(r, missing);
    const aggregates =
      objAt(obj, 'aggregationRule') !== undefined ||
      (r.oldObject !== undefined && objAt(r.oldObject, 'aggregationRule') !== undefined);
    if (
      r.resource === 'clusterroles' &&
      aggregates &&
      this.escalation(r.user, '', FULL_AUTHORITY) !== undefined
    ) {
      throw this.forbidden(r, 'must have cluster-admin privileges to use the aggregationRule');
    }
  }

  private async checkBinding(r: AdmissionRequest, obj: Obj): Promise<void> {
    const ref = objAt(obj, 'roleRef') ?? {};
    const kind = str(ref['kind']) ?? '';
    const roleName = str(ref['name']) ?? '';
    const roleResource = kind === 'Role' ? 'roles' : 'clusterroles';
    if (await this.allowed(r.user, 'bind', roleResource, r.namespace, roleName)) return;
    const got = this.o.rbac.roleRefRules({ kind, name: roleName }, r.namespace);
    if ('error' in got) throw notFound(kind.toLowerCase(), this.o.rbacGroup, roleName);
    const missing = this.escalation(r.user, r.namespace, got.rules);
    if (missing !== undefined) throw this.forbidden(r, missing);
  }

  /** The reference's ConfirmNoEscalation message, or undefined when the user holds every rule. */
  private escalation(
    user: UserInfo,
    namespace: string,
    rules: readonly PolicyRule[],
  ): string | undefined {
    const held = this.o.rbac.heldRules(user, namespace);
    const missing = uncoveredRules(held.rules, rules);
    if (missing.length === 0) return undefined;
    const lines = [...new Set(compactRules(missing).map(compactString))].sort();
    let msg =
      `user ${JSON.stringify(user.username)} (groups=${goQuotedList(user.groups)}) is ` +
      `attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
    if (held.errors.length > 0)
      msg +=
        `; resolution errors: ` +
        `[${held.errors.length === 1 ? held.errors[0] : `[${held.errors.join(', ')}]`}]`;
    return msg;
  }

  private forbidden(r: AdmissionRequest, why: string): StatusError {
    return forbidden(
      `${r.resource}.${this.o.rbacGroup} ${JSON.stringify(r.name)} is forbidden: ${why}`,
      { name: r.name, group: this.o.rbacGroup, kind: r.resource },
    );
  }
}
