// Lease (coordination/v1) and the RBAC kinds (rbac.authorization/v1).
import { labelSelector, topLevel } from './meta.js';
import { atomicList, int32, microTime, obj, str, type ObjOptions, type Schema } from './types.js';

const COORD_PKG = 'io.k8s.api.coordination.v1';
const RBAC_PKG = 'io.k8s.api.rbac.v1';
const rbac = (
  name: string,
  fields: Record<string, Schema>,
  o: Omit<ObjOptions, 'pkg'> = {},
): Schema => obj(name, fields, { pkg: RBAC_PKG, ...o });

export const lease = topLevel(
  'v1.Lease',
  {
    spec: obj(
      'v1.LeaseSpec',
      {
        holderIdentity: str,
        leaseDurationSeconds: int32,
        acquireTime: microTime,
        renewTime: microTime,
        leaseTransitions: int32,
        strategy: str,
        preferredHolder: str,
      },
      { pkg: COORD_PKG },
    ),
  },
  { pkg: COORD_PKG },
);

const policyRule = rbac(
  'v1.PolicyRule',
  {
    verbs: atomicList(str),
    apiGroups: atomicList(str),
    resources: atomicList(str),
    resourceNames: atomicList(str),
    nonResourceURLs: atomicList(str),
  },
  { required: ['verbs'] },
);

export const role = topLevel('v1.Role', { rules: atomicList(policyRule) }, { pkg: RBAC_PKG });

export const clusterRole = topLevel(
  'v1.ClusterRole',
  {
    rules: atomicList(policyRule),
    aggregationRule: rbac('v1.AggregationRule', {
      clusterRoleSelectors: atomicList(labelSelector),
    }),
  },
  { pkg: RBAC_PKG },
);

const subject = rbac(
  'v1.Subject',
  { kind: str, apiGroup: str, name: str, namespace: str },
  { required: ['kind', 'name'], atomic: true },
);
const roleRef = rbac(
  'v1.RoleRef',
  { apiGroup: str, kind: str, name: str },
  { required: ['apiGroup', 'kind', 'name'], atomic: true },
);

export const roleBinding = topLevel(
  'v1.RoleBinding',
  { subjects: atomicList(subject), roleRef },
  { pkg: RBAC_PKG, required: ['roleRef'] },
);
export const clusterRoleBinding = topLevel(
  'v1.ClusterRoleBinding',
  { subjects: atomicList(subject), roleRef },
  { pkg: RBAC_PKG, required: ['roleRef'] },
);
