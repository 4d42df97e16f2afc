// plat-apiserver's entry point: flags, certificates and admin.platconfig, the server, the
// controllers, and a clean stop on SIGTERM/SIGINT. Returns an exit code on failure and
// undefined while serving.

import { readFile } from 'node:fs/promises';
import { namesFor, type Names } from '../common/names.js';
import type { Authenticator } from './interfaces.js';
import { createLogger } from '../common/log/logger.js';
import type { Logger } from '../common/log/types.js';
import { systemClock, type Clock } from '../common/util/clock.js';
import { CertificateError, FlagError, NodeAgentError, userMessage } from '../common/util/errors.js';
import { setYamlNoteSink } from '../common/util/yaml-notes.js';
import {
  prepareCertificates,
  writeAdminPlatconfig,
  type ServerCertificates,
} from './admin-platconfig.js';
import { LateModes } from './authz/modes.js';
import { loadTokenFile, tokenFileAuthenticator } from './auth/token-file.js';
import { x509Authenticator } from './auth/x509.js';
import { NodeAuthorizer } from './authz/node/authorizer.js';
import { RegistryNodeObjects } from './authz/node/registry-objects.js';
import { BootstrapTokenAuthenticator } from './bootstrap-token/authenticator.js';
import { RegistrySecrets } from './bootstrap-token/registry-secrets.js';
import { runTokenCommand } from './bootstrap-token/token-command.js';
import { startControllers } from './controllers/start.js';
import { parseFlags, type ApiServerFlags } from './flags.js';
import { DEFAULT_MAX_BODY_BYTES } from './handlers/body.js';
import { EXTRA_FLAGS, loadPlugins, type ApiServerPlugins } from './plugins.js';
import { trackedManagedFields } from './registry/managed-fields.js';
import { ApiServer, type ApiServerOptions } from './server.js';
import { SubresourceProxy } from './proxy/handler.js';
import { prepareKubeletClient, type KubeletClientRuntime } from './proxy/kubelet-client.js';
import { identityTransformers } from './storage/identity.js';
import { isValidateConfigInvocation, runValidateConfig } from './config/validate-command.js';
import { PodSupport } from './pod-support.js';

export interface RunningApiServer {
  readonly server: ApiServer;
  readonly url: string;
  readonly adminPlatconfig: string;
  readonly caFile: string;
  stop(): Promise<void>;
}

/** Builds and starts everything the flags describe (also used in-process by benchmarks). */
/**
 * `extra` plugs parts in without flags (tests, benchmarks, embedding): its authenticators and
 * admission plugins come after the configured ones; its authorizers replace the configured chain.
 */
export async function startApiServer(
  flags: ApiServerFlags,
  logger: Logger,
  clock: Clock = systemClock,
  extra: ApiServerPlugins = {},
): Promise<RunningApiServer> {
  const certs = await prepareCertificates({ ...flags, clock });
  const clientCaPems = await clientCas(flags, certs);
  const names = namesFor(flags.platformProfile, flags.platformDomain);
  const { nodeObjects, nodeAuthorizer, late } = nodeAuthorization(names);
  const pods = await PodSupport.prepare({ ...flags, extra: flags.extra, names, clock, logger });
  const plugins = await loadPlugins(flags, logger, clock, late, {
    authorizer: nodeAuthorizer,
    objects: nodeObjects,
    leaseNamespace: names.namespaces.nodeLease,
    serviceAccounts: pods.objects,
  });
  const secrets = new RegistrySecrets();
  const server = new ApiServer(
    serverOptions({
      flags,
      certs,
      clientCaPems,
      names,
      plugins,
      extra,
      late,
      secrets,
      pods,
      clock,
      logger,
    }),
  );
  nodeObjects.bind(server.registry, server.defs);
  await pods.bind(server);
  secrets.bind(server.registry, server.defs.secret);
  late.bindDefaults(logger, plugins.authorizerModes ?? flags.authorizationMode);
  late.chain.bind(server.authorizer);
  const kubeletFiles = new AbortController();
  server.useProxy(
    await agentProxy(server, flags, certs, names, { logger, clock, signal: kubeletFiles.signal }),
  );
  const url = serverUrl(await server.start());
  const adminPlatconfig = await writeAdminPlatconfig({
    certDir: flags.certDir,
    server: url,
    certs,
    clock,
  });
  const controllers = new AbortController();
  const loops = startControllers(
    {
      server,
      enabled: flags.controllers,
      ca: certs.clusterCa,
      clusterSigningDurationMs: flags.clusterSigningDurationMs,
      nodeMonitorGracePeriodMs: flags.nodeMonitorGracePeriodMs,
      names,
      clock,
      logger,
    },
    controllers.signal,
  );
  loops.push(
    ...pods.startControllers(
      server,
      {
        enabled: flags.controllers,
        rootCaPem: certs.servingCaPem,
        securePort: Number(new URL(url).port),
      },
      controllers.signal,
    ),
  );
  logger.info(
    { address: url, adminPlatconfig, dataDir: flags.dataDir ?? '(memory)' },
    `plat-apiserver listening on ${url}; admin credentials in ${adminPlatconfig}`,
  );
  return {
    server,
    url,
    adminPlatconfig,
    caFile: certs.servingCaFile,
    stop: async () => {
      controllers.abort();
      kubeletFiles.abort();
      await Promise.all(loops);
      await server.stop();
      await plugins.close?.();
    },
  };
}

/** The server's options from the flags, the loaded plugins and the parts `extra` plugs in. */
function serverOptions(p: {
  readonly flags: ApiServerFlags;
  readonly certs: ServerCertificates;
  readonly clientCaPems: string[];
  readonly names: Names;
  readonly plugins: ApiServerPlugins;
  readonly extra: ApiServerPlugins;
  readonly late: LateModes;
  readonly secrets: RegistrySecrets;
  readonly pods: PodSupport;
  readonly clock: Clock;
  readonly logger: Logger;
}): ApiServerOptions {
  const { flags, certs, names, plugins, extra, clock, logger } = p;
  return {
    platformDomain: names.groupDomain,
    names,
    bindAddress: flags.bindAddress,
    port: flags.securePort,
    tls: {
      certPem: certs.serving.certPem + certs.servingCaPem,
      keyPem: certs.serving.keyPem,
      clientCaPems: p.clientCaPems,
    },
    dataDir: flags.dataDir,
    authenticators: [
      ...flagAuthenticators(flags, names, p.secrets, clock, logger),
      p.pods.authenticator,
      ...(plugins.authenticators ?? []),
      ...(extra.authenticators ?? []),
    ],
    anonymousAuth: flags.anonymousAuth,
    authorizers: [...(extra.authorizers ?? plugins.authorizers ?? [])],
    lateModes: p.late,
    admission: [...(plugins.admission ?? []), ...(extra.admission ?? [])],
    transformers: plugins.transformers ?? identityTransformers(),
    tracer: plugins.tracer,
    managedFields: trackedManagedFields(),
    featureGates: { ShardedListAndWatch: flags.featureGates['ShardedListAndWatch'] === true },
    minRequestTimeoutSeconds: flags.minRequestTimeoutSeconds,
    compactionIntervalMs: flags.etcdCompactionIntervalMs,
    watchCacheSize: flags.defaultWatchCacheSize,
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    apiAudiences: [...p.pods.apiAudiences],
    extraResources: p.pods.resources(),
    clock,
    logger,
  };
}

/** The Node authorizer (bound into the late modes) over node objects the registry is bound to later. */
function nodeAuthorization(names: Names): {
  nodeObjects: RegistryNodeObjects;
  nodeAuthorizer: NodeAuthorizer;
  late: LateModes;
} {
  // The Node authorizer and NodeRestriction read pods and nodes: bound to the registry once it exists.
  const nodeObjects = new RegistryNodeObjects();
  const nodeAuthorizer = new NodeAuthorizer({
    platformDomain: names.groupDomain,
    nodeLeaseNamespace: names.namespaces.nodeLease,
    objects: nodeObjects,
  });
  const late = new LateModes();
  late.node.bind(nodeAuthorizer);
  return { nodeObjects, nodeAuthorizer, late };
}

/** The CAs whose client certificates authenticate: the cluster CA, and --client-ca-file. */
async function clientCas(flags: ApiServerFlags, certs: ServerCertificates): Promise<string[]> {
  const pems = [certs.clusterCa.certPem];
  if (flags.clientCaFile === undefined) return pems;
  try {
    pems.push(await readFile(flags.clientCaFile, 'utf8'));
  } catch (err) {
    throw new FlagError(`--client-ca-file ${flags.clientCaFile}: ${(err as Error).message}`, {
      flag: 'client-ca-file',
    });
  }
  return pems;
}

/** The authenticators the flags turn on: x509 always, --token-auth-file, --enable-bootstrap-token-auth. */
function flagAuthenticators(
  flags: ApiServerFlags,
  names: Names,
  secrets: RegistrySecrets,
  clock: Clock,
  logger: Logger,
): Authenticator[] {
  const authenticators: Authenticator[] = [x509Authenticator()];
  if (flags.tokenAuthFile !== undefined)
    authenticators.push(tokenFileAuthenticator(loadTokenFile(flags.tokenAuthFile)));
  if (flags.enableBootstrapTokenAuth) {
    authenticators.push(
      new BootstrapTokenAuthenticator({
        secrets,
        platformDomain: names.labelDomain,
        namespace: names.namespaces.system,
        clock,
        logger: logger.child({ component: 'bootstrap-token' }),
      }),
    );
  }
  return authenticators;
}

/** pods/log, exec, attach, portforward and nodes/proxy to the agents, with the kubelet-client certificate. */
async function agentProxy(
  server: ApiServer,
  flags: ApiServerFlags,
  certs: ServerCertificates,
  names: Names,
  r: KubeletClientRuntime,
): Promise<SubresourceProxy> {
  const tls = await prepareKubeletClient(flags, certs.clusterCa, names.product, r);
  return new SubresourceProxy({
    registry: server.registry,
    podDef: server.defs.pod,
    nodeDef: server.defs.node,
    tls,
    preferredAddressTypes: flags.kubeletPreferredAddressTypes,
    authorizer: server.authorizer,
    logger: r.logger.child({ component: 'proxy' }),
    clock: r.clock,
  });
}

/** The URL clients reach the server at (a wildcard bind address is reached on 127.0.0.1). */
function serverUrl({ host, port }: { host: string; port: number }): string {
  const hostForUrl =
    host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `https://${hostForUrl}:${port}`;
}

export async function main(argv: string[]): Promise<number | undefined> {
  // --- configuration-file flags (issue 7): --validate-config FILE... checks files and exits ---
  if (isValidateConfigInvocation(argv)) {
    return runValidateConfig(argv, {
      out: (t) => process.stdout.write(t),
      err: (t) => process.stderr.write(t),
    });
  }
  // --- end configuration-file flags ---
  if (argv[0] === 'token') {
    return runTokenCommand(argv.slice(1), {
      out: (t) => process.stdout.write(t),
      err: (t) => process.stderr.write(t),
      now: () => systemClock.now(),
    });
  }
  let flags: ApiServerFlags;
  try {
    const parsed = parseFlags(argv, EXTRA_FLAGS);
    if (parsed.kind === 'help') {
      process.stdout.write(parsed.text);
      return 0;
    }
    flags = parsed.flags;
  } catch (err) {
    process.stderr.write(`plat-apiserver: ${userMessage(err)}\n`);
    return 1;
  }
  const log = createLogger({ verbosity: flags.verbosity, component: 'plat-apiserver' });
  setYamlNoteSink((note) => log.logger.warn({ detail: note }, 'YAML warning ignored'));
  let running: RunningApiServer;
  try {
    running = await startApiServer(flags, log.logger);
  } catch (err) {
    const known = err instanceof NodeAgentError || err instanceof CertificateError;
    log.logger.error(
      known ? { error: userMessage(err) } : { err },
      'plat-apiserver failed to start',
    );
    if (!known) process.stderr.write(`plat-apiserver: ${userMessage(err)}\n`);
    log.close();
    return 1;
  }
  let stopping = false;
  const shutdown = (sig: string): void => {
    if (stopping) return;
    stopping = true;
    log.logger.info({ signal: sig }, 'stopping plat-apiserver');
    running.stop().then(
      () => {
        log.close();
        process.exitCode = 0;
      },
      (err: unknown) => {
        log.logger.error({ err }, 'error while stopping');
        log.close();
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return undefined;
}
