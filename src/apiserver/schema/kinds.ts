// Known-field trees of the kinds plat-apiserver decodes, one entry per kind: field names, JSON
// types, and which fields are int32/int64 and Time/MicroTime (the reference's Go types). Pod and
// Node are typed in full from the reference's definitions (pod-node.ts, core.generated.ts).
import {
  deleteOptions,
  objectMeta,
  objectReference,
  status,
  topLevel,
  watchEvent,
} from './meta.js';
import {
  arr,
  atomicList,
  bool,
  bytes,
  int32,
  keyed,
  map,
  microTime,
  obj,
  str,
  time,
  type ObjOptions,
  type Schema,
} from './types.js';
import { node, pod } from './pod-node.js';
import { clusterRole, clusterRoleBinding, lease, role, roleBinding } from './lease-rbac.js';
import { reviewKinds } from './reviews.js';
import { eventsV1Event, isEventsV1 } from './events-v1.js';
import { binding, endpoints, service, serviceAccount, tokenRequest } from './services.js';

const CERT_PKG = 'io.k8s.api.certificates.v1';
const cert = (
  name: string,
  fields: Record<string, Schema>,
  o: Omit<ObjOptions, 'pkg'> = {},
): Schema => obj(name, fields, { pkg: CERT_PKG, ...o });

export const certificateSigningRequest = topLevel(
  'v1.CertificateSigningRequest',
  {
    spec: cert(
      'v1.CertificateSigningRequestSpec',
      {
        request: bytes,
        signerName: str,
        expirationSeconds: int32,
        usages: atomicList(str),
        username: str,
        uid: str,
        groups: atomicList(str),
        extra: map(arr(str)),
      },
      { required: ['request', 'signerName'] },
    ),
    status: cert('v1.CertificateSigningRequestStatus', {
      conditions: arr(
        cert(
          'v1.CertificateSigningRequestCondition',
          {
            type: str,
            status: str,
            reason: str,
            message: str,
            lastUpdateTime: time,
            lastTransitionTime: time,
          },
          { required: ['type', 'status'] },
        ),
        // The reference declares no patch strategy here; strategic merge still merges by type
        // (patch/meta.ts).
        { listType: 'map', mapKeys: ['type'] },
      ),
      certificate: bytes,
    }),
  },
  { pkg: CERT_PKG, required: ['spec'] },
);

export const event = topLevel(
  'v1.Event',
  {
    involvedObject: objectReference,
    reason: str,
    message: str,
    source: obj('v1.EventSource', { component: str, host: str }),
    firstTimestamp: time,
    lastTimestamp: time,
    count: int32,
    type: str,
    eventTime: microTime,
    series: obj('v1.EventSeries', { count: int32, lastObservedTime: microTime }),
    action: str,
    related: objectReference,
    reportingComponent: str,
    reportingInstance: str,
  },
  { required: ['metadata', 'involvedObject'] },
);

export const namespace = topLevel('v1.Namespace', {
  spec: obj('v1.NamespaceSpec', { finalizers: atomicList(str) }),
  status: obj('v1.NamespaceStatus', {
    phase: str,
    conditions: keyed(
      obj(
        'v1.NamespaceCondition',
        { type: str, status: str, lastTransitionTime: time, reason: str, message: str },
        { required: ['type', 'status'] },
      ),
      'type',
    ),
  }),
});

export const secret = topLevel('v1.Secret', {
  data: map(bytes),
  stringData: map(str),
  type: str,
  immutable: bool,
});
export const configMap = topLevel('v1.ConfigMap', {
  data: map(str),
  binaryData: map(bytes),
  immutable: bool,
});

export { deleteOptions, objectMeta, pod, node };

/** Every kind with a known-field tree, by kind name (kind names are unique across our groups). */
export const KINDS: ReadonlyMap<string, Schema> = new Map<string, Schema>([
  ['CertificateSigningRequest', certificateSigningRequest],
  ['Event', event],
  ['Namespace', namespace],
  ['Pod', pod],
  ['Node', node],
  ['Secret', secret],
  ['ConfigMap', configMap],
  ['ServiceAccount', serviceAccount],
  ['Service', service],
  ['Endpoints', endpoints],
  ['Binding', binding],
  ['TokenRequest', tokenRequest],
  ['Lease', lease],
  ['Role', role],
  ['ClusterRole', clusterRole],
  ['RoleBinding', roleBinding],
  ['ClusterRoleBinding', clusterRoleBinding],
  ...reviewKinds,
  ['DeleteOptions', deleteOptions],
  ['ObjectMeta', objectMeta],
  ['Status', status],
  ['WatchEvent', watchEvent],
]);

/**
 * The schema of a kind, or undefined when the kind is not known (then nothing is checked).
 * `apiVersion` tells apart the kinds two groups share a name for (core and events.k8s.io Event).
 */
export function schemaForKind(kind: string, apiVersion?: unknown): Schema | undefined {
  if (kind === 'Event' && isEventsV1(apiVersion)) return eventsV1Event;
  return KINDS.get(kind);
}
