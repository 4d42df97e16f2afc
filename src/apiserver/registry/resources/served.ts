// The resource kinds plat-apiserver serves under the profile's names (RBAC's four come from
// authz/rbac): the one list a new resource joins; the build function (start/build.ts) routes,
// documents and discovers what is here.
import type { Names } from '../../../common/names.js';
import type { ResourceDef } from '../types.js';
import { configMapDef } from './configmap.js';
import { csrDef } from './csr.js';
import { eventDef } from './event.js';
import { eventsV1Def } from './events-v1.js';
import { leaseDef } from './lease.js';
import { namespaceDef } from './namespace.js';
import { nodeDef } from './node.js';
import { podDef } from './pod.js';
import { secretDef } from './secret.js';
import { serviceAccountDef } from './serviceaccount.js';
import { serviceDef } from './service.js';
import { endpointsDef } from './endpoints.js';
import type { ClusterIpAllocator } from '../../services/ip-allocator.js';

/**
 * The kinds served under the profile's names; events.k8s.io/v1 Event (eventsV1) is a view of core
 * Events.
 */
export type ServedKind =
  | 'csr'
  | 'event'
  | 'eventsV1'
  | 'node'
  | 'pod'
  | 'namespace'
  | 'secret'
  | 'configMap'
  | 'lease'
  | 'serviceAccount'
  | 'service'
  | 'endpoints';

/** The resource kinds served under the profile's names (RBAC's come from Rbac). */
export type ServedDefs = Readonly<Record<ServedKind, ResourceDef>>;

/** `clusterIps`: the allocator Services take their addresses from (--service-cluster-ip-range). */
export function resourceDefs(names: Names, clusterIps: ClusterIpAllocator): ServedDefs {
  return {
    csr: csrDef(names.groupDomain, names.signers.legacyUnknown),
    event: eventDef,
    eventsV1: eventsV1Def(names),
    node: nodeDef,
    pod: podDef,
    namespace: namespaceDef,
    secret: secretDef,
    configMap: configMapDef,
    lease: leaseDef(names.groups.coordination),
    serviceAccount: serviceAccountDef(names.groups.authentication),
    service: serviceDef(clusterIps),
    endpoints: endpointsDef,
  };
}
