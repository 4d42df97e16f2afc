// What the pod worker asks before it makes a container: its environment (container-env.ts) over
// the node's ConfigMap/Secret manager, the Services (service-lister.ts), the pod's and host's
// addresses and the node's allocatable, then command and args expanded over it. A failure is the
// container's CreateContainerConfigError, with the reference's message.
import type { Container, Pod } from '../pod/types.js';
import { expandedCommand, type ContainerEnvironment } from '../pod/expand.js';
import type { PodObjects } from '../objects/types.js';
import type { NodeAllocatable } from '../volume/downward-api.js';
import { makeEnvironment } from './container-env.js';
import { serviceEnv, type ServiceInfo } from './service-env.js';

/** The Services as the lister knows them (service-lister.ts). */
export interface ServiceSource {
  /** Resolves whether the Services have been read at least once, waiting up to `ms` for it. */
  waitForSync(ms: number): Promise<boolean>;
  list(): readonly ServiceInfo[];
}

/**
 * How long a container waits for the Services' first list (the reference's informer has it
 * long before; this agent starts the list with its loops).
 */
export const SERVICES_SYNC_WAIT_MS = 5000;

export interface EnvResolverOptions {
  /** The ConfigMap/Secret manager the volumes read through; undefined without an API server. */
  objects: PodObjects | undefined;
  /**
   * The Services; undefined without an API server (then no service variables, as the reference).
   */
  services: ServiceSource | undefined;
  /** The node's addresses, the first of its family first (status.hostIP, status.hostIPs). */
  hostIPs: readonly string[];
  /** The node's allocatable (cpu in cores, the rest in bytes), which unset limits resolve to. */
  allocatable: () => NodeAllocatable;
  /** Static pods (files, URL) need not wait for the Services' first list. */
  isStatic: (pod: Pod) => boolean;
}

export class ContainerEnvResolver {
  constructor(private readonly o: EnvResolverOptions) {}

  private async services(pod: Pod): Promise<Map<string, string>> {
    const { services } = this.o;
    if (services === undefined) return new Map();
    if (!this.o.isStatic(pod) && !(await services.waitForSync(SERVICES_SYNC_WAIT_MS)))
      throw new Error('services have not yet been read at least once, cannot construct envvars');
    // unset is the API's default, true
    return serviceEnv(
      services.list(),
      pod.metadata.namespace,
      pod.spec.enableServiceLinks !== false,
    );
  }

  /**
   * The container's environment, command and args; throws the reference's message when it cannot be
   * made.
   */
  async resolve(pod: Pod, c: Container, podIP: string | undefined): Promise<ContainerEnvironment> {
    const env = await makeEnvironment(pod, c, {
      objects: this.o.objects,
      serviceEnv: await this.services(pod),
      addresses: {
        podIPs: podIP !== undefined && podIP !== '' ? [podIP] : [],
        hostIPs: this.o.hostIPs,
      },
      allocatable: this.o.allocatable(),
    });
    return {
      env: [...env].map(([name, value]) => ({ name, value })),
      ...expandedCommand(c, env),
    };
  }
}
