// The OpenAPI documents of plat-apiserver's served resources without a running server: the same
// ResourceDefs and review endpoints server.ts registers, under a profile's names.
import { OpenApi } from '../../src/apiserver/openapi/index.js';
import { reviewEndpoints } from '../../src/apiserver/openapi/catalog.js';
import { rbacDefs } from '../../src/apiserver/authz/rbac/resources.js';
import { configMapDef } from '../../src/apiserver/registry/resources/configmap.js';
import { csrDef } from '../../src/apiserver/registry/resources/csr.js';
import { eventDef } from '../../src/apiserver/registry/resources/event.js';
import { leaseDef } from '../../src/apiserver/registry/resources/lease.js';
import { namespaceDef } from '../../src/apiserver/registry/resources/namespace.js';
import { nodeDef } from '../../src/apiserver/registry/resources/node.js';
import { podDef } from '../../src/apiserver/registry/resources/pod.js';
import { secretDef } from '../../src/apiserver/registry/resources/secret.js';
import { serviceAccountDef } from '../../src/apiserver/registry/resources/serviceaccount.js';
import { serviceDef } from '../../src/apiserver/registry/resources/service.js';
import { endpointsDef } from '../../src/apiserver/registry/resources/endpoints.js';
import { clusterIpAllocatorOf } from '../../src/apiserver/services/flags.js';
import { namesFor, type PlatformProfile } from '../../src/common/names.js';
import type { Clock } from '../../src/common/util/clock.js';
import { ManualClock } from './manual-clock.js';

export function openApiFor(
  profile: PlatformProfile,
  clock: Pick<Clock, 'now'> = new ManualClock(),
  platformDomain?: string,
): OpenApi {
  const n = namesFor(profile, platformDomain);
  const defs = [
    csrDef(n.groupDomain),
    eventDef,
    nodeDef,
    podDef,
    namespaceDef,
    secretDef,
    configMapDef,
    leaseDef(n.groups.coordination),
    serviceAccountDef(n.groups.authentication),
    serviceDef(clusterIpAllocatorOf(undefined)),
    endpointsDef,
    ...Object.values(rbacDefs(n)),
  ];
  return new OpenApi({
    defs,
    reviews: reviewEndpoints(n.groups),
    title: 'Kubernetes',
    version: 'v1.32.0',
    clock,
    names: n,
  });
}

/** Every definition of every v3 document under the kubernetes profile, by name. */
export function allDefinitions(): Map<string, Record<string, unknown>> {
  const o = openApiFor('kubernetes');
  const out = new Map<string, Record<string, unknown>>();
  for (const key of Object.keys(o.index().paths)) {
    const doc = o.v3Document(key) as {
      components: { schemas: Record<string, Record<string, unknown>> };
    };
    for (const [name, def] of Object.entries(doc.components.schemas)) out.set(name, def);
  }
  return out;
}

export function allDefinitionNames(): string[] {
  return [...allDefinitions().keys()];
}
