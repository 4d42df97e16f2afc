// NodeRestriction's rule for TokenRequests (serviceaccounts/<name>/token) made by a node, as the
// reference's admitServiceAccount: the token must be bound to a pod (v1 Pod, by name and UID),
// that pod must still be the one named and must be bound to the requesting node.

import { isRecord, recordOf } from '../../common/util/json-shape.js';
import type { AdmissionRequest } from '../interfaces.js';
import { notFound } from '../status.js';
import { podNodeName, type NodeObjects } from '../authz/node/objects.js';

/**
 * The refusal to throw (the plugin's admission.NewForbidden), or undefined when the request may go
 * on.
 */
export async function tokenRequestProblem(
  node: string,
  r: AdmissionRequest,
  objects: NodeObjects,
): Promise<string | undefined> {
  if (r.operation !== 'CREATE' || r.subresource !== 'token') return undefined;
  const ref = recordOf(r.object?.['spec'])['boundObjectRef'];
  const field = (k: string): string => {
    const v = isRecord(ref) ? ref[k] : undefined;
    return typeof v === 'string' ? v : '';
  };
  if (
    !isRecord(ref) ||
    field('apiVersion') !== 'v1' ||
    field('kind') !== 'Pod' ||
    field('name') === ''
  )
    return 'node requested token not bound to a pod';
  if (field('uid') === '') return 'node requested token with a pod binding without a uid';
  const pod = await objects.getPod(r.namespace, field('name'));
  if (pod === undefined) throw notFound('pods', '', field('name'));
  if (recordOf(pod['metadata'])['uid'] !== field('uid'))
    return (
      `the UID in the bound object reference (${field('uid')}) does not match the UID in ` +
      `record. The object might have been deleted and then recreated`
    );
  if (podNodeName(pod) !== node)
    return 'node requested token bound to a pod scheduled on a different node';
  return undefined;
}
