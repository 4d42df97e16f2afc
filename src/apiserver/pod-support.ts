// What pods need from the control plane, built once as one part of plat-apiserver (start/build.ts):
// the service-account token configuration (--service-account-* flags), the token authenticator and
// the reader the ServiceAccount admission plugin uses (both over the store, before the registry),
// the cluster IP allocator (--service-cluster-ip-range) and the advertised address, and the
// POST-only subresources over the registry (serviceaccounts/token, pods/binding). The resources
// themselves are in registry/resources/served.ts; the controllers in controllers/start.ts.

import type { ApiServerConfig } from './start/config.js';
import { ServiceAccountTokenAuthenticator } from './authn/service-account.js';
import { PodBindingAction } from './registry/resources/pod-binding.js';
import type { ServedDefs } from './registry/resources/served.js';
import type { Registry } from './registry/registry.js';
import { storagePrefix } from './registry/keys.js';
import { advertiseAddressOf, clusterIpAllocatorOf } from './services/flags.js';
import { followServices } from './services/held-ips.js';
import type { ClusterIpAllocator } from './services/ip-allocator.js';
import { actionKey, type SubresourceAction, type SubresourceActions } from './handlers/actions.js';
import type { Authenticator } from './interfaces.js';
import type { Store } from './storage/store.js';
import {
  serviceAccountTokenConfig,
  type ServiceAccountTokenConfig,
} from './serviceaccount/flags.js';
import { StoreServiceAccountObjects } from './serviceaccount/store-objects.js';
import { TokenRequestAction } from './serviceaccount/token-request.js';

/** The cluster IP allocator and the advertised address, from the flags (before the defs). */
export function serviceAddresses(c: ApiServerConfig): {
  clusterIps: ClusterIpAllocator;
  advertiseAddress: string;
} {
  const x = c.flags.extra;
  return {
    clusterIps: clusterIpAllocatorOf(x['serviceClusterIpRange']),
    advertiseAddress: advertiseAddressOf(x['advertiseAddress'], c.flags.bindAddress),
  };
}

export class PodSupport {
  readonly tokens: ServiceAccountTokenConfig;
  /** --api-audiences, or (empty) the service account issuers, as the reference defaults them. */
  readonly apiAudiences: readonly string[];
  readonly objects: StoreServiceAccountObjects;
  readonly authenticator: Authenticator;
  readonly clusterIps: ClusterIpAllocator;
  readonly advertiseAddress: string;
  private readonly actionMap = new Map<string, SubresourceAction>();
  private readonly c: ApiServerConfig;
  private readonly store: Store;
  private readonly defs: ServedDefs;

  private constructor(
    c: ApiServerConfig,
    p: { tokens: ServiceAccountTokenConfig; store: Store; defs: ServedDefs },
    addresses: { clusterIps: ClusterIpAllocator; advertiseAddress: string },
  ) {
    this.c = c;
    this.tokens = p.tokens;
    this.store = p.store;
    this.defs = p.defs;
    this.clusterIps = addresses.clusterIps;
    this.advertiseAddress = addresses.advertiseAddress;
    const { flags, names, clock, logger } = c;
    this.apiAudiences = flags.apiAudiences.length > 0 ? flags.apiAudiences : p.tokens.issuers;
    this.objects = new StoreServiceAccountObjects({ store: p.store, defs: p.defs });
    this.authenticator = new ServiceAccountTokenAuthenticator({
      issuers: p.tokens.issuers,
      keys: p.tokens.verificationKeys,
      audiences: this.apiAudiences,
      objects: this.objects,
      names,
      clock,
      logger: logger.child({ component: 'serviceaccount-authenticator' }),
    });
  }

  /** Reads the token flags' key files; the readers are over the store. */
  static async build(
    c: ApiServerConfig,
    store: Store,
    defs: ServedDefs,
    addresses: { clusterIps: ClusterIpAllocator; advertiseAddress: string },
  ): Promise<PodSupport> {
    const tokens = await serviceAccountTokenConfig(c.flags.extra, c.flags.certDir);
    for (const w of tokens.warnings) c.logger.warn({}, w);
    return new PodSupport(c, { tokens, store, defs }, addresses);
  }

  /** The POST-only subresources over the registry: pods/binding, serviceaccounts/token. */
  actionsOver(registry: Registry): SubresourceActions {
    const { defs } = this;
    const { names, clock } = this.c;
    this.actionMap.set(
      actionKey('', 'pods', 'binding'),
      new PodBindingAction({ registry, podDef: defs.pod, clock }),
    );
    this.actionMap.set(
      actionKey('', 'serviceaccounts', 'token'),
      new TokenRequestAction({
        registry,
        defs: {
          serviceAccount: defs.serviceAccount,
          pod: defs.pod,
          secret: defs.secret,
          node: defs.node,
        },
        config: this.tokens,
        apiAudiences: this.apiAudiences,
        authenticationGroup: names.groups.authentication,
        clock,
      }),
    );
    return this.actionMap;
  }

  /** pods/binding, for the scheduler (after actionsOver). */
  get binding(): SubresourceAction {
    const binding = this.actionMap.get(actionKey('', 'pods', 'binding'));
    if (binding === undefined) throw new Error('pods/binding read before the registry was built');
    return binding;
  }

  /**
   * Holds the cluster IPs of the stored Services and follows their changes until `signal`
   * aborts (run.ts, before the server listens).
   */
  async followServices(signal: AbortSignal): Promise<void> {
    const prefix = storagePrefix(this.defs.service, '');
    const stop = await followServices(this.clusterIps, this.store, prefix);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  }
}
