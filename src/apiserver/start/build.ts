// buildApiServer(config): every part of plat-apiserver constructed once, in dependency order,
// into one typed record; nothing listens or loops yet (run.ts starts them). The order:
//   certificates → storage encryption → Store → pod support (service-account tokens and their
//   readers over the store, cluster IPs) → Rbac → the Node authorizer's objects (over the
//   store) → configuration-file plug-ins (authenticators, authorizers and the chain, admission)
//   → Registry (admission + RBAC's escalation check) → served resources (routes, OpenAPI,
//   discovery) → authenticators and their union → the streaming proxy → the request pipeline.
// A new resource goes into registry/resources/served.ts; a new admission plugin into
// admission/plugins.ts (loadPlugins builds it with the chain and the node objects); a new
// controller into controllers/start.ts, which gets this record's registry, defs and authorizer.
import { readFile } from 'node:fs/promises';
import type { Names } from '../../common/names.js';
import { FlagError, userMessage } from '../../common/util/errors.js';
import { prepareCertificates, type ServerCertificates } from '../admin-platconfig.js';
import { x509Authenticator } from '../authn/x509.js';
import { loadTokenFile, tokenFileAuthenticator } from '../authn/token-file.js';
import { BootstrapTokenAuthenticator } from '../authn/bootstrap-token.js';
import { StoreSecrets } from '../authn/store-secrets.js';
import { AuthenticatorChain } from '../authn/union.js';
import type { AuthorizerChain } from '../authz/chain.js';
import { NodeAuthorizer } from '../authz/node/authorizer.js';
import { StoreNodeObjects } from '../authz/node/store-objects.js';
import { Rbac } from '../authz/rbac/index.js';
import { Discovery, servedGroups } from '../discovery.js';
import { servedVersion } from '../version.js';
import type { ApiServerFlags } from '../flags.js';
import { DEFAULT_MAX_BODY_BYTES } from '../handlers/body.js';
import { ProtobufResponses } from '../handlers/protobuf.js';
import type { ResourceHandlerContext } from '../handlers/resource.js';
import { ResourceRoutes } from '../handlers/routes.js';
import type { Authenticator } from '../interfaces.js';
import { reviewEndpoints } from '../openapi/catalog.js';
import { OpenApi } from '../openapi/index.js';
import { loadPlugins, loadStorageEncryption, type LoadedPlugins } from '../plugins.js';
import { SubresourceProxy } from '../proxy/handler.js';
import { prepareKubeletClient } from '../proxy/kubelet-client.js';
import { trackedManagedFields } from '../registry/managed-fields.js';
import { Registry } from '../registry/registry.js';
import type { ResourceDef } from '../registry/types.js';
import { resourceDefs, type ServedDefs } from '../registry/resources/served.js';
import { BOOKMARK_INTERVAL_MS } from '../watch/timers.js';
import { ApiServer, type TlsFrontsWanted } from '../server.js';
import type { SubresourceActions } from '../handlers/actions.js';
import { PodSupport, serviceAddresses } from '../pod-support.js';
import { identityTransformers } from '../storage/identity.js';
import { Store } from '../storage/store.js';
import type { ApiServerConfig } from './config.js';
import { availableParallelism } from 'node:os';
import { helperCount } from './helper-count.js';
import { ThreadPool } from '../workers/thread-pool.js';
import { offloadsOf, type Offloads } from '../workers/offloads.js';
import type { LocalProviderFactory } from '../encryption/registry.js';
import type { Logger } from '../../common/log/types.js';

/** Every part of plat-apiserver, built once. */
export interface ApiServerParts {
  readonly config: ApiServerConfig;
  readonly certs: ServerCertificates;
  readonly store: Store;
  readonly rbac: Rbac;
  readonly defs: ServedDefs;
  readonly plugins: LoadedPlugins;
  /** The one authorizer chain: requests, reviews, admission, controllers, the proxy. */
  readonly authorizer: AuthorizerChain;
  readonly registry: Registry;
  readonly openapi: OpenApi;
  readonly authn: AuthenticatorChain;
  /** What pods need: service-account tokens, cluster IPs, pods/binding (pod-support.ts). */
  readonly pods: PodSupport;
  /** The request pipeline (server.ts). */
  readonly server: ApiServer;
  /** Stops what building started: the kubelet-client file watch, the configured plug-ins. */
  close(): Promise<void>;
}

/** The CAs whose client certificates authenticate: the cluster CA, and --client-ca-file. */
async function clientCas(flags: ApiServerFlags, certs: ServerCertificates): Promise<string[]> {
  const pems = [certs.clusterCa.certPem];
  if (flags.clientCaFile === undefined) return pems;
  try {
    pems.push(await readFile(flags.clientCaFile, 'utf8'));
  } catch (err) {
    throw new FlagError(`--client-ca-file ${flags.clientCaFile}: ${userMessage(err)}`, {
      flag: 'client-ca-file',
    });
  }
  return pems;
}

/**
 * The authenticators the flags turn on: x509 always, --token-auth-file,
 * --enable-bootstrap-token-auth.
 */
function flagAuthenticators(c: ApiServerConfig, store: Store, defs: ServedDefs): Authenticator[] {
  const { flags, names, clock, logger } = c;
  const authenticators: Authenticator[] = [
    x509Authenticator({ credentialIdKey: `authentication.${names.labelDomain}/credential-id` }),
  ];
  if (flags.tokenAuthFile !== undefined)
    authenticators.push(tokenFileAuthenticator(loadTokenFile(flags.tokenAuthFile)));
  if (flags.enableBootstrapTokenAuth) {
    authenticators.push(
      new BootstrapTokenAuthenticator({
        secrets: new StoreSecrets({ store, secretDef: defs.secret }),
        platformDomain: names.labelDomain,
        namespace: names.namespaces.system,
        clock,
        logger: logger.child({ component: 'bootstrap-token' }),
      }),
    );
  }
  return authenticators;
}

/** The one authenticator chain: the flags' (x509 first), service-account tokens, the plug-ins'. */
function authnChain(
  c: ApiServerConfig,
  p: { store: Store; defs: ServedDefs; pods: PodSupport; plugins: LoadedPlugins },
): AuthenticatorChain {
  return new AuthenticatorChain({
    authenticators: [
      ...flagAuthenticators(c, p.store, p.defs),
      p.pods.authenticator,
      ...(p.plugins.authenticators ?? []),
      ...(c.extra.authenticators ?? []),
    ],
    anonymous: c.flags.anonymousAuth,
  });
}

/** RBAC and the Node authorizer over the store, then the configuration files' plug-ins. */
async function authorization(
  c: ApiServerConfig,
  store: Store,
  defs: ServedDefs,
  pods: PodSupport,
): Promise<{ rbac: Rbac; plugins: LoadedPlugins }> {
  const { names, logger } = c;
  const rbac = new Rbac({ names, store, logger });
  const objects = new StoreNodeObjects({ store, pod: defs.pod, node: defs.node });
  const nodeAuthorizer = new NodeAuthorizer({
    platformDomain: names.groupDomain,
    nodeLeaseNamespace: names.namespaces.nodeLease,
    objects,
  });
  const plugins = await loadPlugins(
    c.flags,
    names,
    {
      modes: { rbac: rbac.authorizer, node: nodeAuthorizer },
      replaceAuthorizers: c.extra.authorizers,
      nodes: {
        authorizer: nodeAuthorizer,
        objects,
        leaseNamespace: names.namespaces.nodeLease,
        serviceAccounts: pods.objects,
      },
    },
    logger,
    c.clock,
  );
  return { rbac, plugins };
}

/** The registry over the store, with every admission plugin and RBAC's escalation check. */
function registryOf(
  c: ApiServerConfig,
  store: Store,
  rbac: Rbac,
  plugins: LoadedPlugins,
  all: readonly ResourceDef[],
  servedMaker: Offloads['servedMaker'],
): Registry {
  const { names, clock, logger } = c;
  const registry = new Registry({
    store,
    platformDomain: names.groupDomain,
    names,
    clock,
    logger,
    admission: [
      ...(plugins.admission ?? []),
      ...(c.extra.admission ?? []),
      rbac.escalationCheck(plugins.chain),
    ],
    managedFields: trackedManagedFields(),
    servedMaker,
  });
  // A view shares its storage resource's keys: their namespace clean-up runs once.
  registry.namespacedPrefixes = all
    .filter((x) => x.namespaced && x.view === undefined)
    .map((x) => registry.prefix(x, ''));
  return registry;
}

/** /openapi/v2 and /openapi/v3 of every served resource and review. */
function openApiOf(c: ApiServerConfig, all: readonly ResourceDef[]): OpenApi {
  const { names, clock, logger } = c;
  const openapi = new OpenApi({
    defs: all,
    reviews: reviewEndpoints(names.groups),
    title: names.profile === 'kubernetes' ? 'Kubernetes' : 'plat-apiserver',
    version: servedVersion(c.flags.reportedVersion).gitVersion,
    clock,
    names,
    logger,
  });
  if (openapi.undocumented.length > 0)
    logger.warn(
      { resources: openapi.undocumented },
      'resources without a schema in schema/kinds.ts are left out of /openapi/v2 and /openapi/v3',
    );
  return openapi;
}

function discoveryOf(names: Names, defs: ServedDefs, rbac: Rbac): Discovery {
  return new Discovery({
    groups: servedGroups(names.groups, {
      core: [
        ...[defs.namespace, defs.event, defs.node, defs.pod, defs.secret, defs.configMap],
        ...[defs.serviceAccount, defs.service, defs.endpoints],
      ],
      eventsV1: defs.eventsV1,
      csr: defs.csr,
      lease: defs.lease,
      rbacGroup: rbac.names.group,
      rbac: rbac.resources,
    }),
  });
}

/** What the resource handlers need: the registry, the limits, and the watch settings. */
function handlerContext(
  c: ApiServerConfig,
  registry: Registry,
  authorizer: AuthorizerChain,
  actions: SubresourceActions,
  offloads: Offloads,
): ResourceHandlerContext {
  const { flags, names, clock, logger } = c;
  const platformDomain = names.groupDomain;
  return {
    registry,
    actions,
    platformDomain,
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    bodyDecoder: offloads.bodyDecoder,
    shardingEnabled: flags.featureGates['ShardedListAndWatch'] === true,
    authorizer,
    clock,
    watch: {
      platformDomain,
      minRequestTimeoutSeconds: flags.minRequestTimeoutSeconds,
      bookmarkIntervalMs: BOOKMARK_INTERVAL_MS,
      maxQueue: Math.max(1000, flags.defaultWatchCacheSize * 100),
      logger,
      clock,
      frameMaker: offloads.frameMaker,
    },
  };
}

/**
 * pods/log, exec, attach, portforward and nodes/proxy to the agents, with the kubelet-client
 * certificate.
 */
async function agentProxy(
  c: ApiServerConfig,
  p: {
    certs: ServerCertificates;
    registry: Registry;
    defs: ServedDefs;
    authorizer: AuthorizerChain;
  },
  signal: AbortSignal,
): Promise<SubresourceProxy> {
  const { flags, names, clock, logger } = c;
  const r = { logger, clock, signal };
  const tls = await prepareKubeletClient(flags, p.certs.clusterCa, names.product, r);
  return new SubresourceProxy({
    registry: p.registry,
    podDef: p.defs.pod,
    nodeDef: p.defs.node,
    tls,
    preferredAddressTypes: flags.kubeletPreferredAddressTypes,
    authorizer: p.authorizer,
    logger: logger.child({ component: 'proxy' }),
    clock,
  });
}

/** The store over the configured encryption; the encryption is closed when the build fails. */
async function storage(
  c: ApiServerConfig,
  local: LocalProviderFactory | undefined,
): Promise<{ store: Store; closeEncryption: () => void }> {
  const { flags, names, clock, logger } = c;
  const encryption = await loadStorageEncryption(flags, names, logger, clock, local);
  try {
    const store = new Store({
      dataDir: flags.dataDir,
      transformers: encryption.transformers ?? identityTransformers(),
      logger,
      clock,
      compactionIntervalMs: flags.etcdCompactionIntervalMs,
    });
    return { store, closeEncryption: () => encryption.close() };
  } catch (err) {
    encryption.close();
    throw err;
  }
}

/**
 * The TLS front processes --tls-processes asks for, with their script (main.ts gives the shipped
 * one; an embedding that gives none must ask for 0).
 */
function tlsFrontsOf(
  flag: number,
  entry: string | undefined,
  logger: Logger,
): TlsFrontsWanted | undefined {
  const cpus = availableParallelism();
  const count = helperCount(flag, cpus);
  if (flag === -1)
    logger.info(
      { cpus, tlsProcesses: count },
      count === 0
        ? '--tls-processes=-1 on a single CPU: TLS ends in the main process'
        : `--tls-processes=-1: ${count} TLS front processes`,
    );
  if (count === 0) return undefined;
  if (entry === undefined)
    throw new FlagError(
      `--tls-processes=${flag} asks for ${count} TLS front processes, but this embedding of ` +
        'plat-apiserver names no front script (tlsFrontEntry): give --tls-processes=0',
      { flag: 'tls-processes' },
    );
  return { count, entry };
}

/** The request pipeline over the built parts. */
function apiServerOf(
  c: ApiServerConfig,
  p: Pick<
    ApiServerParts,
    'certs' | 'authn' | 'authorizer' | 'registry' | 'pods' | 'openapi' | 'defs' | 'rbac' | 'plugins'
  > & {
    clientCaPems: string[];
    all: readonly ResourceDef[];
    proxy: SubresourceProxy;
    offloads: Offloads;
  },
): ApiServer {
  const { flags, names, logger } = c;
  return new ApiServer({
    platformDomain: names.groupDomain,
    version: servedVersion(flags.reportedVersion),
    bindAddress: flags.bindAddress,
    port: flags.securePort,
    tls: {
      certPem: p.certs.serving.certPem + p.certs.servingCaPem,
      keyPem: p.certs.serving.keyPem,
      clientCaPems: p.clientCaPems,
    },
    tlsFronts: tlsFrontsOf(flags.tlsProcesses, c.extra.tlsFrontEntry, logger),
    authn: p.authn,
    authorizer: p.authorizer,
    routes: new ResourceRoutes(p.all),
    resources: handlerContext(
      c,
      p.registry,
      p.authorizer,
      p.pods.actionsOver(p.registry),
      p.offloads,
    ),
    openapi: p.openapi,
    discovery: discoveryOf(names, p.defs, p.rbac),
    proxy: p.proxy,
    protobufResponses: new ProtobufResponses({ logger }),
    tracer: p.plugins.tracer,
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    bodyDecoder: p.offloads.bodyDecoder,
    apiAudiences: p.pods.apiAudiences,
    logger,
  });
}

/**
 * The worker threads --worker-threads asks for, with their script (main.ts gives the shipped
 * one; an embedding that gives none must ask for 0).
 */
function workerThreadsOf(c: ApiServerConfig): ThreadPool | undefined {
  const flag = c.flags.workerThreads;
  const cpus = availableParallelism();
  const count = helperCount(flag, cpus);
  if (flag === -1)
    c.logger.info(
      { cpus, workerThreads: count },
      count === 0
        ? '--worker-threads=-1 on a single CPU: bodies and encryption on the main thread'
        : `--worker-threads=-1: ${count} worker threads`,
    );
  if (count === 0) return undefined;
  const entry = c.extra.workerThreadEntry;
  if (entry === undefined)
    throw new FlagError(
      `--worker-threads=${flag} asks for ${count} worker threads, but this embedding of ` +
        'plat-apiserver names no thread script (workerThreadEntry): give --worker-threads=0',
      { flag: 'worker-threads' },
    );
  return new ThreadPool({ count, entry, logger: c.logger, clock: c.clock });
}

/** Ends what the build made before the store's close: file watchers, plug-ins, keys, threads. */
async function closeBuilt(
  kubeletFiles: AbortController,
  plugins: LoadedPlugins | undefined,
  closeEncryption: () => void,
  threads: ThreadPool | undefined,
): Promise<void> {
  kubeletFiles.abort();
  await plugins?.close();
  closeEncryption();
  await threads?.stop();
}

/**
 * The worker threads, what they take over, and the store over them; the threads end when the
 * store cannot be made.
 */
async function threadedStorage(c: ApiServerConfig): Promise<{
  threads: ThreadPool | undefined;
  offloads: Offloads;
  store: Store;
  closeEncryption: () => void;
}> {
  const threads = workerThreadsOf(c);
  const offloads = offloadsOf(threads);
  try {
    return { threads, offloads, ...(await storage(c, offloads.localProviders)) };
  } catch (err) {
    await threads?.stop();
    throw err;
  }
}

/** Builds every part from the configuration; starts nothing (run.ts does). */
export async function buildApiServer(c: ApiServerConfig): Promise<ApiServerParts> {
  const { flags, names } = c;
  const certs = await prepareCertificates({ ...flags, clock: c.clock });
  const clientCaPems = await clientCas(flags, certs);
  const { threads, offloads, store, closeEncryption } = await threadedStorage(c);
  const addresses = serviceAddresses(c);
  const defs = resourceDefs(names, addresses.clusterIps);
  const kubeletFiles = new AbortController();
  let plugins: LoadedPlugins | undefined;
  const close = (): Promise<void> => closeBuilt(kubeletFiles, plugins, closeEncryption, threads);
  try {
    const pods = await PodSupport.build(c, store, defs, addresses);
    const built = await authorization(c, store, defs, pods);
    plugins = built.plugins;
    const { rbac } = built;
    const authorizer = plugins.chain;
    const all = [...Object.values(defs), ...rbac.resources];
    const registry = registryOf(c, store, rbac, plugins, all, offloads.servedMaker);
    const openapi = openApiOf(c, all);
    const authn = authnChain(c, { store, defs, pods, plugins });
    const proxy = await agentProxy(c, { certs, registry, defs, authorizer }, kubeletFiles.signal);
    const server = apiServerOf(c, {
      certs,
      clientCaPems,
      authn,
      authorizer,
      all,
      registry,
      pods,
      openapi,
      defs,
      rbac,
      proxy,
      plugins,
      offloads,
    });
    return {
      config: c,
      certs,
      store,
      rbac,
      defs,
      plugins,
      authorizer,
      registry,
      openapi,
      authn,
      pods,
      server,
      close,
    };
  } catch (err) {
    await close();
    store.close();
    throw err;
  }
}
