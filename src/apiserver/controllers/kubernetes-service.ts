// The reference's kubernetes service controller and endpoint reconciler (kube-apiserver): the
// `kubernetes` Service in `default` (labels component=apiserver, provider=kubernetes; port
// `https` 443/TCP to the secure port; the range's first cluster IP) and its Endpoints (the
// advertise address and the secure port; skip-mirror label), made at start and put back when
// changed or deleted, checked every 10 s as the reference's reconciler does.

import { isDeepStrictEqual } from 'node:util';
import type { UserInfo } from '../../common/auth/user.js';
import type { Names } from '../../common/names.js';
import { runEvery } from '../../common/util/every.js';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import type { Registry } from '../registry/registry.js';
import { objAt, type Obj, type ResourceDef } from '../registry/types.js';
import { StatusError } from '../status.js';

const USER: UserInfo = { username: 'system:apiserver', groups: ['system:masters'] };
const OPTS = { user: USER, dryRun: false, fieldManager: 'kube-apiserver', subresource: '' };
export const KUBERNETES_SERVICE_NAME = 'kubernetes';
const INTERVAL_MS = 10_000;

export interface KubernetesServiceOptions {
  readonly registry: Registry;
  readonly serviceDef: ResourceDef;
  readonly endpointsDef: ResourceDef;
  readonly names: Names;
  readonly clusterIp: string;
  readonly advertiseAddress: string;
  readonly securePort: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

function serviceBody(o: KubernetesServiceOptions): Obj {
  return {
    metadata: {
      name: KUBERNETES_SERVICE_NAME,
      labels: { component: 'apiserver', provider: 'kubernetes' },
    },
    spec: {
      ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: o.securePort }],
      sessionAffinity: 'None',
      type: 'ClusterIP',
      clusterIP: o.clusterIp,
    },
  };
}

function endpointsBody(o: KubernetesServiceOptions): Obj {
  return {
    metadata: {
      name: KUBERNETES_SERVICE_NAME,
      labels: { [`endpointslice.${o.names.labelDomain}/skip-mirror`]: 'true' },
    },
    subsets: [
      {
        addresses: [{ ip: o.advertiseAddress }],
        ports: [{ name: 'https', port: o.securePort, protocol: 'TCP' }],
      },
    ],
  };
}

async function ensureService(o: KubernetesServiceOptions): Promise<void> {
  const key = o.registry.key(o.serviceDef, 'default', KUBERNETES_SERVICE_NAME);
  if (o.registry.store.getRaw(key) === undefined) {
    await o.registry.create(o.serviceDef, 'default', serviceBody(o), OPTS);
    return;
  }
  const want = objAt(serviceBody(o), 'spec') ?? {};
  await o.registry.update(o.serviceDef, 'default', KUBERNETES_SERVICE_NAME, OPTS, (current) => {
    if (current === undefined) throw new StatusError(404, 'NotFound', 'gone');
    const spec = objAt(current, 'spec') ?? {};
    // The reference puts back the ports and type; the address stays what was allocated.
    if (isDeepStrictEqual(spec['ports'], want['ports']) && spec['type'] === 'ClusterIP')
      return current;
    return { ...current, spec: { ...spec, ports: want['ports'], type: 'ClusterIP' } };
  });
}

async function ensureEndpoints(o: KubernetesServiceOptions): Promise<void> {
  const body = endpointsBody(o);
  await o.registry.update(o.endpointsDef, 'default', KUBERNETES_SERVICE_NAME, OPTS, (current) => {
    if (current !== undefined && isDeepStrictEqual(current['subsets'], body['subsets']))
      return current;
    return {
      ...(current ?? {}),
      ...body,
      metadata: { ...objAt(current ?? {}, 'metadata'), ...objAt(body, 'metadata') },
    };
  });
}

export async function runKubernetesService(
  o: KubernetesServiceOptions,
  signal: AbortSignal,
): Promise<void> {
  const run = async (): Promise<void> => {
    await ensureService(o);
    await ensureEndpoints(o);
  };
  const onError = (err: unknown): void => {
    if (err instanceof StatusError && (err.status === 409 || err.status === 404)) return;
    o.logger.error(
      { err },
      'could not keep the kubernetes service and its endpoints; trying again in 10s',
    );
  };
  await run().catch(onError);
  await runEvery({ clock: o.clock, ms: INTERVAL_MS, signal, run, onError });
}
