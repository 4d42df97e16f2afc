// The static rules the Node authorizer applies to what it does not subdivide: the reference's
// NodeRules (the `system:node` ClusterRole, whose binding the reference leaves without subjects),
// with its API groups named after the platform domain. A small matcher of verbs, groups and
// resources (with subresources) is all these fixed rules need.

import type { RequestAttributes } from '../../interfaces.js';

export interface StaticRule {
  readonly groups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

const READ = ['get', 'list', 'watch'];

/** The reference's NodeRules (Kubernetes 1.32), group `x.k8s.io` written `x.<domain>`. */
export function nodeRules(platformDomain: string): StaticRule[] {
  const g = (name: string): string => `${name}.${platformDomain}`;
  return [
    { groups: [g('authentication')], resources: ['tokenreviews'], verbs: ['create'] },
    {
      groups: [g('authorization')],
      resources: ['localsubjectaccessreviews', 'subjectaccessreviews'],
      verbs: ['create'],
    },
    { groups: [''], resources: ['services'], verbs: READ },
    { groups: [''], resources: ['nodes'], verbs: ['create', ...READ] },
    { groups: [''], resources: ['nodes/status'], verbs: ['patch', 'update'] },
    { groups: [''], resources: ['nodes'], verbs: ['patch', 'update'] },
    { groups: [''], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    { groups: [''], resources: ['pods'], verbs: READ },
    { groups: [''], resources: ['pods'], verbs: ['create', 'delete'] },
    { groups: [''], resources: ['pods/status'], verbs: ['patch', 'update'] },
    { groups: [''], resources: ['pods/eviction'], verbs: ['create'] },
    { groups: [''], resources: ['configmaps', 'secrets'], verbs: READ },
    { groups: [''], resources: ['persistentvolumeclaims', 'persistentvolumes'], verbs: ['get'] },
    { groups: [''], resources: ['endpoints'], verbs: ['get'] },
    {
      groups: [g('certificates')],
      resources: ['certificatesigningrequests'],
      verbs: ['create', ...READ],
    },
    {
      groups: [g('coordination')],
      resources: ['leases'],
      verbs: ['create', 'delete', 'get', 'patch', 'update'],
    },
    { groups: [g('storage')], resources: ['volumeattachments'], verbs: ['get'] },
    { groups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
    {
      groups: [''],
      resources: ['persistentvolumeclaims/status'],
      verbs: ['get', 'patch', 'update'],
    },
    { groups: [g('storage')], resources: ['csidrivers'], verbs: READ },
    {
      groups: [g('storage')],
      resources: ['csinodes'],
      verbs: ['create', 'delete', 'get', 'patch', 'update'],
    },
    { groups: [g('node')], resources: ['runtimeclasses'], verbs: READ },
  ];
}

/** Whether one of the rules allows a resource request (non-resource requests: never). */
export function rulesAllow(attrs: RequestAttributes, rules: readonly StaticRule[]): boolean {
  if (!attrs.isResourceRequest) return false;
  const resource =
    attrs.subresource === '' ? attrs.resource : `${attrs.resource}/${attrs.subresource}`;
  return rules.some(
    (r) =>
      r.verbs.includes(attrs.verb) &&
      r.groups.includes(attrs.apiGroup) &&
      r.resources.includes(resource),
  );
}
