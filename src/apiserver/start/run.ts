// runApiServer(parts): starts what buildApiServer made, in order: the default namespaces, RBAC
// (roles and bindings loaded, the bootstrap policy reconciled, aggregation), the cluster IPs
// stored Services hold (followed from then on), the listener, the
// storage compaction, admin.platconfig, the controllers; `stop()` stops them in reverse.
// startApiServer is the three stages in one call (main, tests and benchmarks use it).
import type { Logger } from '../../common/log/types.js';
import { everyMs, type Clock } from '../../common/util/clock.js';
import type { ApiServerFlags } from '../flags.js';
import { writeAdminPlatconfig } from '../admin-platconfig.js';
import { startControllers } from '../controllers/start.js';
import type { ApiServerPlugins } from '../plugins.js';
import { buildApiServer, type ApiServerParts } from './build.js';
import { apiServerConfig } from './config.js';

export interface RunningApiServer {
  readonly parts: ApiServerParts;
  readonly url: string;
  readonly adminPlatconfig: string;
  readonly caFile: string;
  stop(): Promise<void>;
}

/** Creates the `default`, system, public and node-lease namespaces when absent. */
async function bootstrapNamespaces(parts: ApiServerParts): Promise<void> {
  const { registry, store, defs } = parts;
  const system = { username: 'system:apiserver', groups: ['system:masters'] };
  const ns = parts.config.names.namespaces;
  for (const name of ['default', ns.system, ns.public, ns.nodeLease]) {
    if (store.getRaw(registry.key(defs.namespace, '', name)) !== undefined) continue;
    await registry.create(
      defs.namespace,
      '',
      { metadata: { name } },
      { user: system, dryRun: false, fieldManager: 'plat-apiserver', subresource: '' },
    );
  }
}

/** --etcd-compaction-interval (0 disables compaction, as the reference's flag does); its stop. */
function startCompaction(parts: ApiServerParts): () => void {
  const { store } = parts;
  const { flags, clock, logger } = parts.config;
  const intervalMs = flags.etcdCompactionIntervalMs;
  if (intervalMs <= 0) return () => undefined;
  const every = Math.max(1000, Math.min(60_000, Math.floor(intervalMs / 5)));
  return everyMs(
    clock,
    every,
    () => {
      try {
        store.compact();
      } catch (err) {
        logger.error(
          { err },
          'storage compaction failed; old revisions are kept until the next attempt',
        );
      }
    },
    { unref: true },
  );
}

/** The URL clients reach the server at (a wildcard bind address is reached on 127.0.0.1). */
function serverUrl({ host, port }: { host: string; port: number }): string {
  const hostForUrl =
    host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `https://${hostForUrl}:${port}`;
}

/** The controllers --controllers names, over the built registry and authorizer. */
function controllers(parts: ApiServerParts, url: string, signal: AbortSignal): Promise<void>[] {
  const { flags, names, clock, logger } = parts.config;
  return startControllers(
    {
      server: parts,
      enabled: flags.controllers,
      ca: parts.certs.clusterCa,
      clusterSigningDurationMs: flags.clusterSigningDurationMs,
      nodeMonitorGracePeriodMs: flags.nodeMonitorGracePeriodMs,
      rootCaPem: parts.certs.servingCaPem,
      securePort: Number(new URL(url).port),
      names,
      clock,
      logger,
    },
    signal,
  );
}

/** Stops the parts run started (the controllers first) and closes the built ones. */
async function stopParts(
  parts: ApiServerParts,
  background: AbortController,
  started: { loops: Promise<void>[]; stopCompaction: () => void },
): Promise<void> {
  background.abort();
  await Promise.all(started.loops);
  await parts.server.stop();
  started.stopCompaction();
  await parts.plugins.tracer?.shutdown();
  parts.rbac.stop();
  parts.store.close();
  await parts.close();
}

/** Starts the built parts; they run until stop(). A failure to start closes what was built. */
export async function runApiServer(parts: ApiServerParts): Promise<RunningApiServer> {
  const { flags, clock, logger } = parts.config;
  const background = new AbortController();
  const loops: Promise<void>[] = [];
  const started = { loops, stopCompaction: (): void => undefined };
  try {
    await bootstrapNamespaces(parts);
    await parts.rbac.start(parts.registry, background.signal);
    await parts.pods.followServices(background.signal);
    const url = serverUrl(await parts.server.listen());
    started.stopCompaction = startCompaction(parts);
    const { certs } = parts;
    const adminPlatconfig = await writeAdminPlatconfig({
      certDir: flags.certDir,
      server: url,
      certs,
      clock,
    });
    started.loops = controllers(parts, url, background.signal);
    logger.info(
      { address: url, adminPlatconfig, dataDir: flags.dataDir ?? '(memory)' },
      `plat-apiserver listening on ${url}; admin credentials in ${adminPlatconfig}`,
    );
    return {
      parts,
      url,
      adminPlatconfig,
      caFile: certs.servingCaFile,
      stop: () => stopParts(parts, background, started),
    };
  } catch (err) {
    await stopParts(parts, background, started).catch(() => undefined);
    throw err;
  }
}

/** options → config → build → run, in one call. */
export async function startApiServer(
  flags: ApiServerFlags,
  logger: Logger,
  clock?: Clock,
  extra?: ApiServerPlugins,
): Promise<RunningApiServer> {
  return runApiServer(await buildApiServer(apiServerConfig(flags, logger, clock, extra)));
}
