// The fields each resource can be selected on (the reference's field label conversion funcs and
// ToSelectableFields), and a getter that reads them from a stored object. A supported field that
// is absent reads as "" (the reference's field sets always hold every supported label);
// booleans read as "true"/"false".

import { isRecord } from '../../common/util/json-shape.js';

export type SelectableResource =
  | 'certificatesigningrequests'
  | 'events'
  | 'nodes'
  | 'pods'
  | 'namespaces'
  | 'secrets'
  | 'configmaps'
  | 'roles'
  | 'clusterroles'
  | 'rolebindings'
  | 'clusterrolebindings'
  | 'leases'
  | 'serviceaccounts'
  | 'services'
  | 'endpoints';

export const SUPPORTED_FIELDS: Readonly<Record<SelectableResource, ReadonlySet<string>>> = {
  certificatesigningrequests: new Set(['metadata.name', 'metadata.namespace', 'spec.signerName']),
  events: new Set([
    'metadata.name',
    'metadata.namespace',
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ]),
  nodes: new Set(['metadata.name', 'metadata.namespace', 'spec.unschedulable']),
  pods: new Set([
    'metadata.name',
    'metadata.namespace',
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ]),
  namespaces: new Set(['metadata.name', 'metadata.namespace', 'status.phase']),
  secrets: new Set(['metadata.name', 'metadata.namespace', 'type']),
  configmaps: new Set(['metadata.name', 'metadata.namespace']),
  roles: new Set(['metadata.name', 'metadata.namespace']),
  clusterroles: new Set(['metadata.name', 'metadata.namespace']),
  rolebindings: new Set(['metadata.name', 'metadata.namespace']),
  clusterrolebindings: new Set(['metadata.name', 'metadata.namespace']),
  leases: new Set(['metadata.name', 'metadata.namespace']),
  serviceaccounts: new Set(['metadata.name', 'metadata.namespace']),
  services: new Set(['metadata.name', 'metadata.namespace']),
  endpoints: new Set(['metadata.name', 'metadata.namespace']),
};

function child(v: unknown, key: string): unknown {
  return isRecord(v) ? v[key] : undefined;
}

function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  return '';
}

function bool(v: unknown): string {
  return v === true ? 'true' : 'false';
}

function path(obj: unknown, dotted: string): unknown {
  let cur = obj;
  for (const k of dotted.split('.')) cur = child(cur, k);
  return cur;
}

/**
 * Reads a supported field of `obj` for field-selector matching; undefined for an unsupported field.
 */
export function fieldGetterFor(
  resource: SelectableResource,
  obj: unknown,
): (field: string) => string | undefined {
  const supported = SUPPORTED_FIELDS[resource];
  return (field: string): string | undefined => {
    if (!supported.has(field)) return undefined;
    if (resource === 'events') {
      if (field === 'source') {
        const component = str(path(obj, 'source.component'));
        return component !== '' ? component : str(child(obj, 'reportingComponent'));
      }
    }
    if (resource === 'nodes' && field === 'spec.unschedulable') return bool(path(obj, field));
    if (resource === 'pods') {
      if (field === 'spec.hostNetwork') return bool(path(obj, field));
      if (field === 'status.podIP') {
        const ip = str(path(obj, field));
        if (ip !== '') return ip;
        const ips = path(obj, 'status.podIPs');
        return Array.isArray(ips) ? str(child(ips[0], 'ip')) : '';
      }
    }
    return str(path(obj, field));
  };
}
