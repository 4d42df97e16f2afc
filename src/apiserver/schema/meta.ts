// ObjectMeta and the other shared meta types (v1): io.k8s.apimachinery.pkg.apis.meta.v1 and the
// core group's ObjectReference.
import {
  arr,
  atomicList,
  bool,
  int32,
  int64,
  keyed,
  map,
  META_PKG,
  obj,
  str,
  time,
  type ObjOptions,
  type Schema,
} from './types.js';

const meta = (
  name: string,
  fields: Record<string, Schema>,
  o: Omit<ObjOptions, 'pkg'> = {},
): Schema => obj(name, fields, { pkg: META_PKG, ...o });

export const ownerReference = meta(
  'v1.OwnerReference',
  { apiVersion: str, kind: str, name: str, uid: str, controller: bool, blockOwnerDeletion: bool },
  { required: ['apiVersion', 'kind', 'name', 'uid'], atomic: true },
);

export const managedFieldsEntry = meta('v1.ManagedFieldsEntry', {
  manager: str,
  operation: str,
  apiVersion: str,
  time,
  fieldsType: str,
  fieldsV1: { t: 'any', ref: `${META_PKG}.FieldsV1` },
  subresource: str,
});

export const objectMeta = meta('v1.ObjectMeta', {
  name: str,
  generateName: str,
  namespace: str,
  selfLink: str,
  uid: str,
  resourceVersion: str,
  generation: int64,
  creationTimestamp: time,
  deletionTimestamp: time,
  deletionGracePeriodSeconds: int64,
  labels: map(str),
  annotations: map(str),
  ownerReferences: keyed(ownerReference, 'uid'),
  finalizers: arr(str, { listType: 'set', patchStrategy: 'merge' }),
  managedFields: atomicList(managedFieldsEntry),
});

export const objectReference = obj(
  'v1.ObjectReference',
  {
    kind: str,
    namespace: str,
    name: str,
    uid: str,
    apiVersion: str,
    resourceVersion: str,
    fieldPath: str,
  },
  { atomic: true },
);

export const listMeta = meta('v1.ListMeta', {
  selfLink: str,
  resourceVersion: str,
  continue: str,
  remainingItemCount: int64,
});

export const labelSelectorRequirement = meta(
  'v1.LabelSelectorRequirement',
  { key: str, operator: str, values: atomicList(str) },
  { required: ['key', 'operator'] },
);
export const fieldSelectorRequirement = meta(
  'v1.FieldSelectorRequirement',
  { key: str, operator: str, values: atomicList(str) },
  { required: ['key', 'operator'] },
);

/** meta/v1 Condition (ServiceStatus.conditions). */
export const condition = meta(
  'v1.Condition',
  {
    type: str,
    status: str,
    observedGeneration: int64,
    lastTransitionTime: time,
    reason: str,
    message: str,
  },
  { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
);

export const labelSelector = meta(
  'v1.LabelSelector',
  { matchLabels: map(str), matchExpressions: atomicList(labelSelectorRequirement) },
  { atomic: true },
);

export const status = meta('v1.Status', {
  apiVersion: str,
  kind: str,
  metadata: listMeta,
  status: str,
  message: str,
  reason: str,
  details: meta('v1.StatusDetails', {
    name: str,
    group: str,
    kind: str,
    uid: str,
    causes: atomicList(meta('v1.StatusCause', { reason: str, message: str, field: str })),
    retryAfterSeconds: int32,
  }),
  code: int32,
});

export const deleteOptions: Schema = meta('v1.DeleteOptions', {
  apiVersion: str,
  kind: str,
  gracePeriodSeconds: int64,
  preconditions: meta('v1.Preconditions', { uid: str, resourceVersion: str }),
  orphanDependents: bool,
  propagationPolicy: str,
  dryRun: atomicList(str),
  ignoreStoreReadErrorWithClusterBreakingPotential: bool,
});

export const watchEvent = meta(
  'v1.WatchEvent',
  { type: str, object: { t: 'any', ref: 'io.k8s.apimachinery.pkg.runtime.RawExtension' } },
  { required: ['type', 'object'] },
);

export const apiResourceList = meta(
  'v1.APIResourceList',
  {
    apiVersion: str,
    kind: str,
    groupVersion: str,
    resources: atomicList(
      meta(
        'v1.APIResource',
        {
          name: str,
          singularName: str,
          namespaced: bool,
          group: str,
          version: str,
          kind: str,
          verbs: arr(str),
          shortNames: atomicList(str),
          categories: atomicList(str),
          storageVersionHash: str,
        },
        { required: ['name', 'singularName', 'namespaced', 'kind', 'verbs'] },
      ),
    ),
  },
  { required: ['groupVersion', 'resources'] },
);

/** The body of a PATCH (any of the patch media types). */
export const patchBody: Schema = { t: 'any', ref: `${META_PKG}.Patch` };

/** The top of every kind: apiVersion, kind, metadata plus the kind's own fields. */
export function topLevel(name: string, fields: Record<string, Schema>, o?: ObjOptions): Schema {
  return obj(name, { apiVersion: str, kind: str, metadata: objectMeta, ...fields }, o);
}

/** The list kind of an item kind: apiVersion, kind, ListMeta and the items. */
export function listOf(item: Extract<Schema, { t: 'object' }>): Extract<Schema, { t: 'object' }> {
  return obj(
    `${item.name}List`,
    { apiVersion: str, kind: str, metadata: listMeta, items: arr(item) },
    { ...(item.opts?.pkg === undefined ? {} : { pkg: item.opts.pkg }), required: ['items'] },
  );
}

// The discovery answers (/api, /apis, /apis/<group>) and /version, which the v3 index's
// non-group-version documents (`api`, `apis`, `apis/<group>`, `version`) describe.
const serverAddressByClientCIDR = meta(
  'v1.ServerAddressByClientCIDR',
  { clientCIDR: str, serverAddress: str },
  { required: ['clientCIDR', 'serverAddress'] },
);
const groupVersionForDiscovery = meta(
  'v1.GroupVersionForDiscovery',
  { groupVersion: str, version: str },
  { required: ['groupVersion', 'version'] },
);

export const apiVersions = meta(
  'v1.APIVersions',
  {
    apiVersion: str,
    kind: str,
    versions: atomicList(str),
    serverAddressByClientCIDRs: atomicList(serverAddressByClientCIDR),
  },
  { required: ['versions', 'serverAddressByClientCIDRs'] },
);

export const apiGroup = meta(
  'v1.APIGroup',
  {
    apiVersion: str,
    kind: str,
    name: str,
    versions: atomicList(groupVersionForDiscovery),
    preferredVersion: groupVersionForDiscovery,
    serverAddressByClientCIDRs: atomicList(serverAddressByClientCIDR),
  },
  { required: ['name', 'versions'] },
);

export const apiGroupList = meta(
  'v1.APIGroupList',
  { apiVersion: str, kind: str, groups: atomicList(apiGroup) },
  { required: ['groups'] },
);

const VERSION_INFO = [
  'major',
  'minor',
  'gitVersion',
  'gitCommit',
  'gitTreeState',
  'buildDate',
  'goVersion',
  'compiler',
  'platform',
];
/** /version's answer: io.k8s.apimachinery.pkg.version.Info. */
export const versionInfo = obj('Info', Object.fromEntries(VERSION_INFO.map((k) => [k, str])), {
  pkg: 'io.k8s.apimachinery.pkg.version',
  required: VERSION_INFO,
});
