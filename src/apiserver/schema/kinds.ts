// Known-field trees of the kinds plat-apiserver decodes, one entry per kind: field names, JSON
// types, and which fields are int32/int64 and Time/MicroTime (the reference's Go types). Pod and
// Node check metadata strictly but keep spec and status open (their full types belong to the
// agent and are preserved as sent); only their integer and time fields are typed here.
import { objectMeta, objectReference, topLevel } from './meta.js';
import { arr, bool, int32, int64, map, microTime, obj, str, time, type Schema } from './types.js';
import { node, pod } from './pod-node.js';

export const certificateSigningRequest = topLevel('v1.CertificateSigningRequest', {
  spec: obj('v1.CertificateSigningRequestSpec', {
    request: str,
    signerName: str,
    expirationSeconds: int32,
    usages: arr(str),
    username: str,
    uid: str,
    groups: arr(str),
    extra: map(arr(str)),
  }),
  status: obj('v1.CertificateSigningRequestStatus', {
    conditions: arr(
      obj('v1.CertificateSigningRequestCondition', {
        type: str,
        status: str,
        reason: str,
        message: str,
        lastUpdateTime: time,
        lastTransitionTime: time,
      }),
    ),
    certificate: str,
  }),
});

export const event = topLevel('v1.Event', {
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
});

export const namespace = topLevel('v1.Namespace', {
  spec: obj('v1.NamespaceSpec', { finalizers: arr(str) }),
  status: obj('v1.NamespaceStatus', {
    phase: str,
    conditions: arr(obj('v1.NamespaceCondition', { type: str, status: str, lastTransitionTime: time, reason: str, message: str })),
  }),
});

export const deleteOptions: Schema = obj('v1.DeleteOptions', {
  apiVersion: str,
  kind: str,
  gracePeriodSeconds: int64,
  preconditions: obj('v1.Preconditions', { uid: str, resourceVersion: str }),
  orphanDependents: bool,
  propagationPolicy: str,
  dryRun: arr(str),
  ignoreStoreReadErrorWithClusterBreakingPotential: bool,
});

export const secret = topLevel('v1.Secret', { data: map(str), stringData: map(str), type: str, immutable: bool });
export const configMap = topLevel('v1.ConfigMap', { data: map(str), binaryData: map(str), immutable: bool });

export { objectMeta, pod, node };

/** The schema of a kind, or undefined when the kind is not known (then nothing is checked). */
export function schemaForKind(kind: string): Schema | undefined {
  switch (kind) {
    case 'CertificateSigningRequest':
      return certificateSigningRequest;
    case 'Event':
      return event;
    case 'Namespace':
      return namespace;
    case 'DeleteOptions':
      return deleteOptions;
    case 'Pod':
      return pod;
    case 'Node':
      return node;
    case 'Secret':
      return secret;
    case 'ConfigMap':
      return configMap;
    case 'ObjectMeta':
      return objectMeta;
    default:
      return undefined;
  }
}
