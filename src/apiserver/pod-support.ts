// What pods need from the control plane, plugged into plat-apiserver as one part: service
// accounts (the ServiceAccount resource, its token subresource, the token authenticator, the
// admission plugin's reader), Services with cluster IPs and Endpoints, and the controllers that
// keep the `default` service account and the root CA ConfigMap in every namespace and the
// `kubernetes` service in `default`, and the scheduler (pods/binding). main builds it before the server (its authenticator
// and reader go into the chains), binds it to the server's registry, and starts its controllers.

import type { Names } from '../common/names.js';
import type { Clock } from '../common/util/clock.js';
import type { Logger } from '../common/log/types.js';
import { ServiceAccountTokenAuthenticator } from './authn/service-account.js';
import { runRootCaPublisher } from './controllers/root-ca-publisher.js';
import { runServiceAccountController } from './controllers/service-account.js';
import { runKubernetesService } from './controllers/kubernetes-service.js';
import { Scheduler } from './controllers/scheduler/scheduler.js';
import { PodBindingAction } from './registry/resources/pod-binding.js';
import { endpointsDef } from './registry/resources/endpoints.js';
import { serviceDef } from './registry/resources/service.js';
import { advertiseAddressOf, clusterIpAllocatorOf } from './services/flags.js';
import { followServices } from './services/held-ips.js';
import type { ClusterIpAllocator } from './services/ip-allocator.js';
import { actionKey, type SubresourceAction } from './handlers/actions.js';
import type { Authenticator } from './interfaces.js';
import { serviceAccountDef } from './registry/resources/serviceaccount.js';
import type { ResourceDef } from './registry/types.js';
import type { ApiServer } from './server.js';
import {
  serviceAccountTokenConfig,
  type ServiceAccountTokenConfig,
} from './serviceaccount/flags.js';
import { RegistryServiceAccountObjects } from './serviceaccount/registry-objects.js';
import { TokenRequestAction } from './serviceaccount/token-request.js';

export interface PodSupportOptions {
  readonly extra: Readonly<Record<string, string>>;
  readonly certDir: string;
  readonly bindAddress: string;
  /** --api-audiences; empty: the service account issuers, as the reference defaults them. */
  readonly apiAudiences: readonly string[];
  readonly names: Names;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class PodSupport {
  readonly tokens: ServiceAccountTokenConfig;
  readonly apiAudiences: readonly string[];
  readonly objects = new RegistryServiceAccountObjects();
  readonly authenticator: Authenticator;
  readonly defs: {
    readonly serviceAccount: ResourceDef;
    readonly service: ResourceDef;
    readonly endpoints: ResourceDef;
  };
  readonly clusterIps: ClusterIpAllocator;
  readonly advertiseAddress: string;
  private stopFollowing: (() => void) | undefined;
  /** The POST-only subresources, filled in by bind(). */
  readonly actions = new Map<string, SubresourceAction>();
  private readonly o: PodSupportOptions;

  private constructor(o: PodSupportOptions, tokens: ServiceAccountTokenConfig) {
    this.o = o;
    this.tokens = tokens;
    this.apiAudiences = o.apiAudiences.length > 0 ? o.apiAudiences : tokens.issuers;
    this.clusterIps = clusterIpAllocatorOf(o.extra['serviceClusterIpRange']);
    this.advertiseAddress = advertiseAddressOf(o.extra['advertiseAddress'], o.bindAddress);
    this.defs = {
      serviceAccount: serviceAccountDef(o.names.groups.authentication),
      service: serviceDef(this.clusterIps),
      endpoints: endpointsDef,
    };
    this.authenticator = new ServiceAccountTokenAuthenticator({
      issuers: tokens.issuers,
      keys: tokens.verificationKeys,
      audiences: this.apiAudiences,
      objects: this.objects,
      names: o.names,
      clock: o.clock,
      logger: o.logger.child({ component: 'serviceaccount-authenticator' }),
    });
  }

  static async prepare(o: PodSupportOptions): Promise<PodSupport> {
    const tokens = await serviceAccountTokenConfig(o.extra, o.certDir);
    for (const w of tokens.warnings) o.logger.warn({}, w);
    return new PodSupport(o, tokens);
  }

  /** The served resources this part adds. */
  resources(): {
    readonly defs: readonly ResourceDef[];
    readonly actions: Map<string, SubresourceAction>;
  } {
    return { defs: Object.values(this.defs), actions: this.actions };
  }

  /** Binds the readers, the subresources and the cluster IPs to the server's registry. */
  async bind(server: ApiServer): Promise<void> {
    const prefix = server.registry.prefix(this.defs.service, '');
    this.stopFollowing = await followServices(this.clusterIps, server.store, prefix);
    const defs = {
      serviceAccount: this.defs.serviceAccount,
      pod: server.defs.pod,
      secret: server.defs.secret,
      node: server.defs.node,
    };
    this.objects.bind(server.registry, defs);
    this.actions.set(
      actionKey('', 'pods', 'binding'),
      new PodBindingAction({
        registry: server.registry,
        podDef: server.defs.pod,
        clock: this.o.clock,
      }),
    );
    this.actions.set(
      actionKey('', 'serviceaccounts', 'token'),
      new TokenRequestAction({
        registry: server.registry,
        defs,
        config: this.tokens,
        apiAudiences: this.apiAudiences,
        authenticationGroup: this.o.names.groups.authentication,
        clock: this.o.clock,
      }),
    );
  }

  private scheduler(server: ApiServer, signal: AbortSignal): Promise<void> {
    const binding = this.actions.get(actionKey('', 'pods', 'binding'));
    if (binding === undefined)
      throw new Error('the scheduler started before pods/binding was bound');
    return new Scheduler({
      registry: server.registry,
      podDef: server.defs.pod,
      nodeDef: server.defs.node,
      eventDef: server.defs.eventsV1,
      binding,
      names: this.o.names,
      clock: this.o.clock,
      logger: this.o.logger.child({ component: 'scheduler' }),
    }).run(signal);
  }

  /**
   * The controllers: the `kubernetes` service, and (as --controllers names them) `default`
   * service accounts and the root CA ConfigMap in every namespace.
   */
  startControllers(
    server: ApiServer,
    c: {
      readonly enabled: readonly string[];
      readonly rootCaPem: string;
      readonly securePort: number;
    },
    signal: AbortSignal,
  ): Promise<void>[] {
    const { clock, logger, names } = this.o;
    const failed =
      (name: string) =>
      (err: unknown): void =>
        logger.error({ err }, `${name} controller stopped unexpectedly`);
    const base = { registry: server.registry, namespaceDef: server.defs.namespace, clock };
    const loops: Promise<void>[] = [];
    const k = {
      registry: server.registry,
      serviceDef: this.defs.service,
      endpointsDef: this.defs.endpoints,
      names,
      clusterIp: this.clusterIps.firstIp(),
      advertiseAddress: this.advertiseAddress,
      securePort: c.securePort,
      clock,
      logger: logger.child({ component: 'kubernetes-service' }),
    };
    loops.push(runKubernetesService(k, signal).catch(failed('kubernetes service')));
    signal.addEventListener('abort', () => this.stopFollowing?.(), { once: true });
    if (c.enabled.includes('scheduler'))
      loops.push(this.scheduler(server, signal).catch(failed('scheduler')));
    if (c.enabled.includes('serviceaccount')) {
      const o = {
        ...base,
        serviceAccountDef: this.defs.serviceAccount,
        logger: logger.child({ component: 'serviceaccount' }),
      };
      loops.push(runServiceAccountController(o, signal).catch(failed('serviceaccount')));
    }
    if (c.enabled.includes('root-ca-cert-publisher')) {
      const o = {
        ...base,
        configMapDef: server.defs.configMap,
        names,
        rootCaPem: c.rootCaPem,
        logger: logger.child({ component: 'root-ca-cert-publisher' }),
      };
      loops.push(runRootCaPublisher(o, signal).catch(failed('root-ca-cert-publisher')));
    }
    return loops;
  }
}
