// The controllers pods need, started with the others (start.ts): the `kubernetes` service and
// its endpoints (always, as kube-apiserver runs its reconciler), and as --controllers names them
// the scheduler, `default` service accounts and the root CA ConfigMap in every namespace.

import type { Names } from '../../common/names.js';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import type { SubresourceAction } from '../handlers/actions.js';
import type { Registry } from '../registry/registry.js';
import type { ServedDefs } from '../registry/resources/served.js';
import type { ClusterIpAllocator } from '../services/ip-allocator.js';
import { runKubernetesService } from './kubernetes-service.js';
import { runRootCaPublisher } from './root-ca-publisher.js';
import { Scheduler } from './scheduler/scheduler.js';
import { runServiceAccountController } from './service-account.js';

/** What these controllers use of the built pod support (pod-support.ts). */
export interface PodControllerParts {
  readonly clusterIps: ClusterIpAllocator;
  readonly advertiseAddress: string;
  /** pods/binding, which the scheduler binds through. */
  readonly binding: SubresourceAction;
}

export interface PodControllersOptions {
  readonly server: {
    readonly registry: Registry;
    readonly defs: ServedDefs;
    readonly pods: PodControllerParts;
  };
  readonly enabled: readonly string[];
  /** The CA bundle published as kube-root-ca.crt (the serving certificate's CA). */
  readonly rootCaPem: string;
  /** The port the `kubernetes` service's endpoints name. */
  readonly securePort: number;
  readonly names: Names;
  readonly clock: Clock;
  readonly logger: Logger;
  onLoopError(name: string): (err: unknown) => void;
}

function kubernetesService(o: PodControllersOptions, signal: AbortSignal): Promise<void> {
  const { registry, defs, pods } = o.server;
  const k = {
    registry,
    serviceDef: defs.service,
    endpointsDef: defs.endpoints,
    names: o.names,
    clusterIp: pods.clusterIps.firstIp(),
    advertiseAddress: pods.advertiseAddress,
    securePort: o.securePort,
    clock: o.clock,
    logger: o.logger.child({ component: 'kubernetes-service' }),
  };
  return runKubernetesService(k, signal).catch(o.onLoopError('kubernetes service'));
}

function scheduler(o: PodControllersOptions, signal: AbortSignal): Promise<void> {
  const { registry, defs, pods } = o.server;
  return new Scheduler({
    registry,
    podDef: defs.pod,
    nodeDef: defs.node,
    eventDef: defs.eventsV1,
    binding: pods.binding,
    names: o.names,
    clock: o.clock,
    logger: o.logger.child({ component: 'scheduler' }),
  })
    .run(signal)
    .catch(o.onLoopError('scheduler'));
}

/** Starts them; the promises settle once `signal` stops them. */
export function startPodControllers(
  o: PodControllersOptions,
  signal: AbortSignal,
): Promise<void>[] {
  const { clock, logger } = o;
  const { registry, defs } = o.server;
  const base = { registry, namespaceDef: defs.namespace, clock };
  const loops = [kubernetesService(o, signal)];
  if (o.enabled.includes('scheduler')) loops.push(scheduler(o, signal));
  if (o.enabled.includes('serviceaccount')) {
    const s = {
      ...base,
      serviceAccountDef: defs.serviceAccount,
      logger: logger.child({ component: 'serviceaccount' }),
    };
    loops.push(runServiceAccountController(s, signal).catch(o.onLoopError('serviceaccount')));
  }
  if (o.enabled.includes('root-ca-cert-publisher')) {
    const r = {
      ...base,
      configMapDef: defs.configMap,
      names: o.names,
      rootCaPem: o.rootCaPem,
      logger: logger.child({ component: 'root-ca-cert-publisher' }),
    };
    loops.push(runRootCaPublisher(r, signal).catch(o.onLoopError('root-ca-cert-publisher')));
  }
  return loops;
}
