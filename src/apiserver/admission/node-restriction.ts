// NodeRestriction, as the reference's admission plugin (plugin/pkg/admission/noderestriction):
// a node (`system:node:<name>` in `system:nodes`) may create only mirror pods bound to itself and
// owned by its Node, delete only pods bound to itself, update status only of those, modify only
// its own Node (its labels within the allowed set, never its taints) and only its own Lease.
// Messages are the reference's, wrapped as its admission.NewForbidden wraps them.

import { isDeepStrictEqual } from 'node:util';
import type { Names } from '../../common/names.js';
import { nodeIdentity } from '../authz/node/identity.js';
import {
  podNodeName,
  podConfigMapNames,
  podSecretNames,
  type NodeObjects,
} from '../authz/node/objects.js';
import type { AdmissionPlugin, AdmissionRequest } from '../interfaces.js';
import { forbidden, notFound } from '../status.js';
import { textOf } from '../../common/util/text-of.js';
import { modifiedLabels, nodeLabelPolicy, type NodeLabelPolicy } from './node-labels.js';
import { recordOf, listOf } from '../../common/util/json-shape.js';
import { tokenRequestProblem } from './node-restriction-token.js';

type Obj = Record<string, unknown>;

export interface NodeRestrictionOptions {
  /**
   * The profile's names: the mirror-pod annotation, the node label domain and the coordination
   * group of node leases.
   */
  readonly names: Names;
  readonly nodeLeaseNamespace: string;
  readonly objects: NodeObjects;
}

const rec = recordOf;
const meta = (o: Obj | undefined): Obj => rec(o?.['metadata']);
const labelsOf = (o: Obj | undefined): Obj => rec(meta(o)['labels']);
/** Semantic equality: absent, null and empty lists are the same (the reference's apiequality). */
const emptyAsUndefined = (v: unknown): unknown =>
  v === null || (Array.isArray(v) && v.length === 0) ? undefined : v;
const sameValue = (a: unknown, b: unknown): boolean =>
  isDeepStrictEqual(emptyAsUndefined(a), emptyAsUndefined(b));

export class NodeRestriction implements AdmissionPlugin {
  readonly name = 'NodeRestriction';
  /**
   * The reference's NodeRestriction is a mutating plugin (it runs before the resourceVersion
   * check).
   */
  readonly mutating = true;
  private readonly o: NodeRestrictionOptions;
  private readonly labels: NodeLabelPolicy;
  private readonly mirrorAnnotation: string;
  constructor(o: NodeRestrictionOptions) {
    this.o = o;
    const { names } = o;
    this.mirrorAnnotation = names.annotations.configMirror;
    // The reference reserves k8s.io beside kubernetes.io; a platform domain reserves itself.
    const alsoReserved = names.groupDomain === names.labelDomain ? [] : [names.groupDomain];
    this.labels = nodeLabelPolicy(names.labelDomain, { agentWord: names.agentWord, alsoReserved });
  }

  async admit(r: AdmissionRequest): Promise<void> {
    const node = nodeIdentity(r.user);
    if (node === undefined || r.operation === 'CONNECT') return;
    if (node === '') throw refuse(r, `could not determine node from user "${r.user.username}"`);
    const groupResource = `${r.apiGroup}/${r.resource}`;
    if (groupResource === '/pods') {
      if (r.subresource === '') await this.admitPod(node, r);
      else if (r.subresource === 'status') admitPodStatus(node, r);
      else if (r.subresource !== 'eviction')
        throw refuse(
          r,
          `unexpected pod subresource "${r.subresource}", only 'status' and 'eviction' are allowed`,
        );
    } else if (groupResource === '/nodes') {
      this.admitNode(node, r);
    } else if (groupResource === `${this.o.names.groups.coordination}/leases`) {
      this.admitLease(node, r);
    } else if (groupResource === '/serviceaccounts') {
      const problem = await tokenRequestProblem(node, r, this.o.objects);
      if (problem !== undefined) throw refuse(r, problem);
    }
  }

  private async admitPod(node: string, r: AdmissionRequest): Promise<void> {
    if (r.operation === 'CREATE') return this.admitPodCreate(node, r, r.object ?? {});
    if (r.operation === 'DELETE') {
      if (podNodeName(r.oldObject ?? {}) !== node)
        throw refuse(r, `node "${node}" can only delete pods with spec.nodeName set to itself`);
      return;
    }
    throw refuse(
      r,
      `unexpected operation "${r.operation}", node "${node}" can only create and delete ` +
        `mirror pods`,
    );
  }

  private async admitPodCreate(node: string, r: AdmissionRequest, pod: Obj): Promise<void> {
    const mirrorKey = this.mirrorAnnotation;
    if (!(mirrorKey in rec(meta(pod)['annotations'])))
      throw refuse(
        r,
        `pod does not have "${mirrorKey}" annotation, node "${node}" can only create mirror pods`,
      );
    if (podNodeName(pod) !== node)
      throw refuse(r, `node "${node}" can only create pods with spec.nodeName set to itself`);
    const owners = listOf(meta(pod)['ownerReferences']).map(rec);
    if (owners.length > 1)
      throw refuse(
        r,
        `node "${node}" can only create pods with a single owner reference set to itself`,
      );
    const owner = owners[0];
    if (owner?.['apiVersion'] !== 'v1' || owner['kind'] !== 'Node' || owner['name'] !== node) {
      throw refuse(r, `node "${node}" can only create pods with an owner reference set to itself`);
    }
    if (owner['controller'] !== true)
      throw refuse(
        r,
        `node "${node}" can only create pods with a controller owner reference set to itself`,
      );
    if (owner['blockOwnerDeletion'] === true)
      throw refuse(r, `node "${node}" must not set blockOwnerDeletion on an owner reference`);
    const self = await this.o.objects.getNode(node);
    if (self === undefined) throw notFound('nodes', '', node);
    if (owner['uid'] !== meta(self)['uid'])
      throw refuse(
        r,
        `node ${node} UID mismatch: expected ${textOf(owner['uid'] ?? '')} got ` +
          textOf(meta(self)['uid'] ?? ''),
      );
    const spec = rec(pod['spec']);
    if (typeof spec['serviceAccountName'] === 'string' && spec['serviceAccountName'] !== '')
      throw refuse(r, `node "${node}" can not create pods that reference a service account`);
    if (podSecretNames(pod).size > 0)
      throw refuse(r, `node "${node}" can not create pods that reference secrets`);
    if (podConfigMapNames(pod).size > 0)
      throw refuse(r, `node "${node}" can not create pods that reference configmaps`);
    const volumes = Array.isArray(spec['volumes']) ? spec['volumes'].map(rec) : [];
    const projected = volumes.flatMap((v) => listOf(rec(v['projected'])['sources']).map(rec));
    if (projected.some((s) => s['clusterTrustBundle'] !== undefined))
      throw refuse(r, `node "${node}" can not create pods that reference clustertrustbundles`);
    if (volumes.some((v) => v['persistentVolumeClaim'] !== undefined))
      throw refuse(r, `node "${node}" can not create pods that reference persistentvolumeclaims`);
  }

  private admitNode(node: string, r: AdmissionRequest): void {
    if (r.name !== node)
      throw refuse(r, `node "${node}" is not allowed to modify node "${r.name}"`);
    const spec = rec(r.object?.['spec']);
    if (r.operation === 'CREATE') {
      if (spec['configSource'] !== undefined && spec['configSource'] !== null)
        throw refuse(r, `node "${node}" is not allowed to create pods with a non-nil configSource`);
      const bad = this.labels.forbidden(modifiedLabels(labelsOf(r.object), {}));
      if (bad.length > 0)
        throw refuse(
          r,
          `node "${node}" is not allowed to set the following labels: ${bad.join(', ')}`,
        );
    } else if (r.operation === 'UPDATE') {
      const oldSpec = rec(r.oldObject?.['spec']);
      const source = spec['configSource'];
      if (source !== undefined && source !== null && !sameValue(source, oldSpec['configSource'])) {
        throw refuse(
          r,
          `node "${node}" is not allowed to update configSource to a new non-nil configSource`,
        );
      }
      if (!sameValue(spec['taints'], oldSpec['taints']))
        throw refuse(r, `node "${node}" is not allowed to modify taints`);
      const bad = this.labels.forbidden(modifiedLabels(labelsOf(r.object), labelsOf(r.oldObject)));
      // The reference's message names no node here.
      if (bad.length > 0) throw refuse(r, `is not allowed to modify labels: ${bad.join(', ')}`);
    }
  }

  private admitLease(node: string, r: AdmissionRequest): void {
    const ns = this.o.nodeLeaseNamespace;
    if (r.namespace !== ns)
      throw refuse(r, `can only access leases in the "${ns}" system namespace`);
    const name = r.operation === 'CREATE' ? meta(r.object)['name'] : r.name;
    if (name !== node)
      throw refuse(r, 'can only access node lease with the same name as the requesting node');
  }
}

function admitPodStatus(node: string, r: AdmissionRequest): void {
  if (r.operation !== 'UPDATE') throw refuse(r, `unexpected operation "${r.operation}"`);
  if (podNodeName(r.oldObject ?? {}) !== node)
    throw refuse(
      r,
      `node "${node}" can only update pod status for pods with spec.nodeName set to itself`,
    );
  if (modifiedLabels(labelsOf(r.object), labelsOf(r.oldObject)).size > 0)
    throw refuse(r, `node "${node}" cannot update labels through pod status`);
  if (
    !sameValue(
      rec(r.object?.['status'])['resourceClaimStatuses'],
      rec(r.oldObject?.['status'])['resourceClaimStatuses'],
    )
  ) {
    throw refuse(r, `node "${node}" cannot update resource claim statues`);
  }
}

/** The reference's admission.NewForbidden: `<resource>[.<group>] "<name>" is forbidden: <why>`. */
function refuse(r: AdmissionRequest, why: string): Error {
  const metaName = meta(r.object)['name'];
  const name = r.name !== '' ? r.name : typeof metaName === 'string' ? metaName : '';
  const resource = r.apiGroup === '' ? r.resource : `${r.resource}.${r.apiGroup}`;
  const message =
    name === '' ? `${resource} is forbidden: ${why}` : `${resource} "${name}" is forbidden: ${why}`;
  return forbidden(message, { name, group: r.apiGroup, kind: r.resource });
}
