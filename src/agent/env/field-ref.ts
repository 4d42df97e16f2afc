// env[].valueFrom.fieldRef as the reference's kubelet resolves it (podFieldSelectorRuntimeValue
// over ConvertDownwardAPIFieldLabel): apiVersion v1 only, the pod's metadata (name, namespace,
// uid, labels, annotations, one label or annotation by key), spec.nodeName,
// spec.serviceAccountName and the pod's and host's addresses, the lists joined with commas.
import type { Pod } from '../pod/types.js';
import { fieldPathValue } from '../volume/downward-api.js';

/** The addresses a fieldRef may read: the pod's (the host's for hostNetwork) and the host's. */
export interface PodAddresses {
  podIPs: readonly string[];
  hostIPs: readonly string[];
}

const SUBSCRIPTED = /^(.+)\['(.*)'\]$/s;

/**
 * The fieldPath ConvertDownwardAPIFieldLabel accepts (spec.host as spec.nodeName); throws its
 * error.
 */
function convertedPath(apiVersion: string, fieldPath: string): string {
  if (apiVersion !== 'v1') throw new Error(`unsupported pod version: ${apiVersion}`);
  const sub = SUBSCRIPTED.exec(fieldPath);
  if (sub !== null) {
    if (sub[1] === 'metadata.annotations' || sub[1] === 'metadata.labels') return fieldPath;
    throw new Error(`field label does not support subscript: ${fieldPath}`);
  }
  switch (fieldPath) {
    case 'spec.host':
      return 'spec.nodeName';
    case 'metadata.annotations':
    case 'metadata.labels':
    case 'metadata.name':
    case 'metadata.namespace':
    case 'metadata.uid':
    case 'spec.nodeName':
    case 'spec.restartPolicy':
    case 'spec.serviceAccountName':
    case 'spec.schedulerName':
    case 'status.phase':
    case 'status.hostIP':
    case 'status.hostIPs':
    case 'status.podIP':
    case 'status.podIPs':
      return fieldPath;
  }
  throw new Error(`field label not supported: ${fieldPath}`);
}

/**
 * The value of a fieldRef for the pod; throws the reference's message for a path it does not
 * resolve. An unset apiVersion is the API's default, v1.
 */
export function fieldRefValue(
  ref: { apiVersion?: string | undefined; fieldPath: string },
  pod: Pod,
  addresses: PodAddresses,
): string {
  const path = convertedPath(
    ref.apiVersion === undefined || ref.apiVersion === '' ? 'v1' : ref.apiVersion,
    ref.fieldPath,
  );
  switch (path) {
    case 'spec.nodeName':
      return pod.spec.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec.serviceAccountName ?? '';
    case 'status.hostIP':
      return addresses.hostIPs[0] ?? '';
    case 'status.hostIPs':
      return addresses.hostIPs.join(',');
    case 'status.podIP':
      return addresses.podIPs[0] ?? '';
    case 'status.podIPs':
      return addresses.podIPs.join(',');
  }
  // metadata.*; anything else (spec.restartPolicy...) is the reference's `unsupported fieldPath`
  return fieldPathValue(pod, path);
}
