// The Node authorizer, as the reference's (plugin/pkg/auth/authorizer/node, Kubernetes 1.32 with
// AuthorizeNodeWithSelectors on): requests of `system:node:<name>` in `system:nodes` are decided
// here. Nodes: create/update/patch (NodeRestriction confines them to the node's own object) and
// reads of its own Node only. Pods: get of pods bound to the node, list/watch with
// `spec.nodeName=<node>`, create/delete (mirror pods; NodeRestriction checks), status updates.
// Secrets, config maps and persistent volume claims: reads of those a pod bound to the node refers
// to. Service accounts: tokens for those a pod bound to the node runs as. Leases: its own in
// the node-lease namespace. Everything else: the static node rules (rules.ts). A refusal is
// "no opinion" with the reference's reason, so a later authorizer (RBAC) may still allow.

import type {
  AuthorizationDecision,
  Authorizer,
  RequestAttributes,
  RuleResolver,
  SubjectRules,
} from '../../interfaces.js';
import type { UserInfo } from '../../../common/auth/user.js';
import { nodeIdentity } from './identity.js';
import {
  podClaimNames,
  podConfigMapNames,
  podNodeName,
  podSecretNames,
  podServiceAccountName,
  type NodeObjects,
} from './objects.js';
import { nodeRules, rulesAllow, type StaticRule } from './rules.js';

export interface NodeAuthorizerOptions {
  readonly platformDomain: string;
  /** The namespace of node leases (the reference's kube-node-lease). */
  readonly nodeLeaseNamespace: string;
  readonly objects: NodeObjects;
}

const ALLOW: AuthorizationDecision = { decision: 'allow' };
const noOpinion = (reason?: string): AuthorizationDecision =>
  reason === undefined ? { decision: 'no-opinion' } : { decision: 'no-opinion', reason };
const noRelationship = (node: string): AuthorizationDecision =>
  noOpinion(`no relationship found between node '${node}' and this object`);

export class NodeAuthorizer implements Authorizer, RuleResolver {
  private readonly o: NodeAuthorizerOptions;
  private readonly rules: readonly StaticRule[];
  constructor(o: NodeAuthorizerOptions) {
    this.o = o;
    this.rules = nodeRules(o.platformDomain);
  }

  /**
   * As the reference's RulesFor: a node's rules cannot be listed (incomplete); anyone else has none
   * here.
   */
  rulesFor(user: UserInfo): Promise<SubjectRules> {
    if (nodeIdentity(user) === undefined)
      return Promise.resolve({ resourceRules: [], nonResourceRules: [], incomplete: false });
    return Promise.resolve({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: 'node authorizer does not support user rule resolution',
    });
  }

  async authorize(attrs: RequestAttributes): Promise<AuthorizationDecision> {
    const node = nodeIdentity(attrs.user);
    if (node === undefined) return noOpinion();
    if (node === '') return noOpinion(`unknown node for user "${attrs.user.username}"`);
    if (attrs.isResourceRequest) {
      const decided = await this.subdivided(node, attrs);
      if (decided !== undefined) return decided;
    }
    return rulesAllow(attrs, this.rules) ? ALLOW : noOpinion();
  }

  /** The resources the reference decides per object; undefined for the rest. */
  private subdivided(
    node: string,
    attrs: RequestAttributes,
  ): Promise<AuthorizationDecision> | AuthorizationDecision | undefined {
    const d = this.o.platformDomain;
    switch (`${attrs.apiGroup}/${attrs.resource}`) {
      case '/secrets':
        return this.readNamespaced(node, attrs, podSecretNames);
      case '/configmaps':
        return this.readNamespaced(node, attrs, podConfigMapNames);
      case '/nodes':
        return authorizeNode(node, attrs);
      case '/pods':
        return this.authorizePod(node, attrs);
      case `coordination.${d}/leases`:
        return this.authorizeLease(node, attrs);
      case '/persistentvolumeclaims':
        if (attrs.subresource === '' && attrs.verb === 'get' && attrs.name !== '')
          return this.readNamespaced(node, attrs, podClaimNames);
        return attrs.subresource === 'status' ? statusOnly(node, attrs) : getOnly(node, attrs);
      case '/persistentvolumes':
      case `storage.${d}/volumeattachments`:
      case `resource.${d}/resourceclaims`:
        // Not served here, so no pod can relate one to a node.
        return attrs.subresource === 'status' && attrs.resource === 'persistentvolumeclaims'
          ? statusOnly(node, attrs)
          : getOnly(node, attrs);
      case '/serviceaccounts':
        if (attrs.verb !== 'create' || attrs.name === '')
          return noOpinion('can only create tokens for individual service accounts');
        if (attrs.subresource !== 'token')
          return noOpinion('can only create token subresource of serviceaccount');
        return this.serviceAccountOfPod(node, attrs);
      case `storage.${d}/csinodes`:
        return authorizeCsiNode(node, attrs);
      default:
        return undefined;
    }
  }

  private async podBoundTo(node: string, namespace: string, name: string): Promise<boolean> {
    const pod = await this.o.objects.getPod(namespace, name);
    return pod !== undefined && podNodeName(pod) === node;
  }

  private async authorizePod(
    node: string,
    attrs: RequestAttributes,
  ): Promise<AuthorizationDecision> {
    if (attrs.subresource === '') {
      switch (attrs.verb) {
        case 'get':
          return attrs.name === ''
            ? noOpinion('No Object name found')
            : (await this.podBoundTo(node, attrs.namespace, attrs.name))
              ? ALLOW
              : noRelationship(node);
        case 'list':
        case 'watch':
          if (
            (attrs.fieldSelector ?? []).some(
              (r) => r.field === 'spec.nodeName' && r.op === '=' && r.value === node,
            )
          )
            return ALLOW;
          if (attrs.name !== '')
            return (await this.podBoundTo(node, attrs.namespace, attrs.name))
              ? ALLOW
              : noRelationship(node);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        case 'create':
        case 'delete':
          return ALLOW; // mirror pods; NodeRestriction limits them to pods bound to the node
      }
    } else if (
      attrs.subresource === 'status' &&
      (attrs.verb === 'update' || attrs.verb === 'patch')
    ) {
      return ALLOW; // NodeRestriction limits this to pods bound to the node
    } else if (attrs.subresource === 'eviction' && attrs.verb === 'create') {
      return ALLOW;
    }
    return noOpinion();
  }

  private async readNamespaced(
    node: string,
    attrs: RequestAttributes,
    refs: (pod: Record<string, unknown>) => Set<string>,
  ): Promise<AuthorizationDecision> {
    if (!['get', 'list', 'watch'].includes(attrs.verb))
      return noOpinion('can only read resources of this type');
    if (attrs.subresource !== '') return noOpinion('cannot read subresource');
    if (attrs.namespace === '') return noOpinion('can only read namespaced object of this type');
    if (attrs.name === '') return noOpinion('No Object name found');
    const pods = await this.o.objects.podsBoundTo(node, attrs.namespace);
    return pods.some((p) => refs(p).has(attrs.name)) ? ALLOW : noRelationship(node);
  }

  /**
   * A token for a service account that a pod bound to the node runs as (NodeRestriction checks the
   * binding).
   */
  private async serviceAccountOfPod(
    node: string,
    attrs: RequestAttributes,
  ): Promise<AuthorizationDecision> {
    const pods = await this.o.objects.podsBoundTo(node, attrs.namespace);
    return pods.some((p) => podServiceAccountName(p) === attrs.name) ? ALLOW : noRelationship(node);
  }

  private authorizeLease(node: string, attrs: RequestAttributes): AuthorizationDecision {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb))
      return noOpinion('can only get, create, update, patch, or delete a node lease');
    if (attrs.namespace !== this.o.nodeLeaseNamespace)
      return noOpinion(
        `can only access leases in the "${this.o.nodeLeaseNamespace}" system namespace`,
      );
    // On create the name is in the body: NodeRestriction checks it.
    if (attrs.verb !== 'create' && attrs.name !== node)
      return noOpinion('can only access node lease with the same name as the requesting node');
    return ALLOW;
  }
}

function authorizeNode(node: string, attrs: RequestAttributes): AuthorizationDecision {
  if (attrs.subresource === '') {
    // create/update/patch: NodeRestriction limits a node to its own object.
    if (['create', 'update', 'patch'].includes(attrs.verb)) return ALLOW;
    if (['get', 'list', 'watch'].includes(attrs.verb)) {
      if (attrs.name === node) return ALLOW;
      if (attrs.name === '')
        return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
      return noOpinion(`node '${node}' cannot read '${attrs.name}', only its own Node object`);
    }
  } else if (
    attrs.subresource === 'status' &&
    (attrs.verb === 'update' || attrs.verb === 'patch')
  ) {
    return ALLOW;
  }
  return noOpinion();
}

function getOnly(node: string, attrs: RequestAttributes): AuthorizationDecision {
  if (attrs.verb !== 'get') return noOpinion('can only get individual resources of this type');
  if (attrs.subresource !== '') return noOpinion('cannot get subresource');
  return attrs.name === '' ? noOpinion('No Object name found') : noRelationship(node);
}

function statusOnly(node: string, attrs: RequestAttributes): AuthorizationDecision {
  if (attrs.verb !== 'update' && attrs.verb !== 'patch')
    return noOpinion('can only get/update/patch this type');
  return attrs.name === '' ? noOpinion('No Object name found') : noRelationship(node);
}

function authorizeCsiNode(node: string, attrs: RequestAttributes): AuthorizationDecision {
  if (!['get', 'create', 'update', 'patch', 'delete'].includes(attrs.verb))
    return noOpinion('can only get, create, update, patch, or delete a CSINode');
  if (attrs.subresource !== '') return noOpinion('cannot authorize CSINode subresources');
  if (attrs.verb !== 'create' && attrs.name !== node)
    return noOpinion('can only access CSINode with the same name as the requesting node');
  return ALLOW;
}
