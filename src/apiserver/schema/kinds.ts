// Known-field trees of the kinds plat-apiserver decodes. Pod and Node check metadata strictly but
// keep spec and status open (their full types belong to the agent and are preserved as sent).
import { objectMeta, objectReference, topLevel } from './meta.js';
import { any, arr, bool, int, map, obj, str, time, type Schema } from './types.js';

export const certificateSigningRequest = topLevel('v1.CertificateSigningRequest', {
  spec: obj('v1.CertificateSigningRequestSpec', {
    request: str,
    signerName: str,
    expirationSeconds: int,
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
  count: int,
  type: str,
  eventTime: time,
  series: obj('v1.EventSeries', { count: int, lastObservedTime: time }),
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
  gracePeriodSeconds: int,
  preconditions: obj('v1.Preconditions', { uid: str, resourceVersion: str }),
  orphanDependents: bool,
  propagationPolicy: str,
  dryRun: arr(str),
  ignoreStoreReadErrorWithClusterBreakingPotential: bool,
});

export const pod = topLevel('v1.Pod', { spec: any, status: any });
export const node = topLevel('v1.Node', { spec: any, status: any });

export { objectMeta };

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
    case 'ObjectMeta':
      return objectMeta;
    default:
      return undefined;
  }
}
