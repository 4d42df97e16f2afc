// The agent's servers: the secure server (serving certificate, client-certificate and token
// authentication, Webhook or AlwaysAllow authorization), the read-only and the healthz servers.
import { durationMs } from '../../config/duration-field.js';
import { redactConfiguration } from '../../config/redact.js';
import { tlsOptionsFor } from '../../config/tls-ciphers.js';
import { ApiSubjectAccessReviewer, ApiTokenReviewer } from '../../server/api-reviewers.js';
import {
  NodeServers,
  type NodeServersAddresses,
  type SecureServerSettings,
} from '../../server/node-servers.js';
import type { VolumeStatsCache } from '../../volume/stats-cache.js';
import {
  RuntimeCommandRunner,
  RuntimeContainerLogs,
  RuntimeRunningPods,
  RuntimeStats,
} from '../../server/runtime-adapters.js';
import { RuntimeStreaming } from '../../server/streaming-adapters.js';
import { ProfilingHandlers } from '../../server/handlers/profiling.js';
import type { EventRecorder } from '../../node/events/recorder.js';
import { nodeAddresses } from '../../node/identity.js';
import { servingCertificate } from '../../node/serving-certificate.js';
import type { ServicesContext } from './context.js';
import { startTracing } from './tracing.js';

/** The secure server's settings; starts the serving certificate (stopped with the services). */
async function secureSettings(
  ctx: ServicesContext,
  recorder: EventRecorder,
): Promise<SecureServerSettings> {
  const { config, flags, nodeName, names, rest, clock, logger, signal } = ctx;
  const serving = await servingCertificate({
    tlsCertFile: config.tlsCertFile,
    tlsPrivateKeyFile: config.tlsPrivateKeyFile,
    serverTLSBootstrap: config.serverTLSBootstrap,
    certDir: flags.certDir,
    nodeName,
    nodeIps: nodeAddresses(flags.nodeIP, nodeName)
      .filter((a) => a.type === 'InternalIP')
      .map((a) => a.address),
    names,
    rest,
    clock,
    logger,
    signal,
    events: recorder,
  });
  ctx.stops.push(() => serving.stop());
  ctx.ttl.serving = () => serving.ttlSeconds();
  const tlsOpts = tlsOptionsFor(config.tlsCipherSuites, config.tlsMinVersion);
  const authn = config.authentication;
  const tracer = await startTracing(ctx);
  return {
    address: config.address,
    port: config.port,
    tls: serving.source,
    tlsMinVersion: config.tlsMinVersion,
    ...(tlsOpts.ciphers !== undefined ? { tlsCipherSuites: tlsOpts.ciphers.split(':') } : {}),
    enableDebuggingHandlers: config.enableDebuggingHandlers,
    clientCaFile: authn.x509.clientCAFile,
    anonymous: authn.anonymous.enabled,
    ...reviewers(ctx),
    ...(tracer !== undefined ? { tracer } : {}),
  };
}

/** Token webhook and Webhook authorization, through the API server when there is one. */
function reviewers(
  ctx: ServicesContext,
): Pick<SecureServerSettings, 'tokenWebhook' | 'authorization'> {
  const { config, rest, names, logger } = ctx;
  const authn = config.authentication;
  const authz = config.authorization;
  // Without an API server, the webhooks cannot be asked: callers that need them get 500 with
  // the reason (never an allow), and the agent keeps running its pods.
  const noApi = (what: string) => ({
    review: (): Promise<never> =>
      Promise.reject(new Error(`no API server configured (--platconfig) to send the ${what} to`)),
  });
  if (rest === undefined && (authn.webhook.enabled || authz.mode === 'Webhook')) {
    logger.warn(
      {},
      'the token webhook and Webhook authorization need an API server (--platconfig); ' +
        'requests that need them are answered 500',
    );
  }
  const tokenReviewer =
    rest !== undefined ? new ApiTokenReviewer({ rest, names }) : noApi('TokenReview');
  const sarReviewer =
    rest !== undefined
      ? new ApiSubjectAccessReviewer({ rest, names })
      : noApi('SubjectAccessReview');
  return {
    ...(authn.webhook.enabled
      ? {
          tokenWebhook: {
            reviewer: tokenReviewer,
            cacheTtlMs: durationMs(
              authn.webhook.cacheTTL,
              'authentication.webhook.cacheTTL',
              '--authentication-token-webhook-cache-ttl',
            ),
          },
        }
      : {}),
    authorization:
      authz.mode === 'Webhook'
        ? {
            mode: 'Webhook',
            reviewer: sarReviewer,
            authorizedTtlMs: durationMs(
              authz.webhook.cacheAuthorizedTTL,
              'authorization.webhook.cacheAuthorizedTTL',
              '--authorization-webhook-cache-authorized-ttl',
            ),
            unauthorizedTtlMs: durationMs(
              authz.webhook.cacheUnauthorizedTTL,
              'authorization.webhook.cacheUnauthorizedTTL',
              '--authorization-webhook-cache-unauthorized-ttl',
            ),
          }
        : { mode: 'AlwaysAllow' },
  };
}

/** enableDebugFlagsHandler: /debug/flags/v sets the logger tree's verbosity, as klog's -v. */
function debugFlagsHandler(ctx: ServicesContext): { setVerbosity(v: number): void } | undefined {
  if (!ctx.config.enableDebugFlagsHandler) return undefined;
  const { logger } = ctx;
  if (logger.setVerbosity === undefined) {
    logger.warn(
      { field: 'enableDebugFlagsHandler' },
      'enableDebugFlagsHandler cannot take effect: this logger cannot change its ' +
        'verbosity at run time; /debug/flags/v answers 405',
    );
    return undefined;
  }
  return {
    setVerbosity: (v) => {
      logger.setVerbosity?.(v);
      logger.info({ verbosity: v }, 'verbosity changed through /debug/flags/v');
    },
  };
}

/** Starts the servers; resolves with their addresses. */
export async function startServers(
  ctx: ServicesContext,
  recorder: EventRecorder,
  lastSyncIterationMs: () => number | undefined,
  volumeStats?: VolumeStatsCache,
): Promise<{ servers: NodeServers; addresses: NodeServersAddresses }> {
  const { agent, config, nodeName, clock, logger, metrics } = ctx;
  const runtime = agent.runtime.runtime;
  const profiling = config.enableProfilingHandler
    ? new ProfilingHandlers({ clock, contention: config.enableContentionProfiling })
    : undefined;
  if (profiling !== undefined)
    ctx.signal.addEventListener('abort', () => profiling.close(), { once: true });
  const debugFlags = debugFlagsHandler(ctx);
  const servers = new NodeServers({
    syncLoop: { lastIterationMs: lastSyncIterationMs },
    nodeName,
    clock,
    logger,
    metrics,
    pods: { pods: () => agent.pods.pods() },
    runningPods: new RuntimeRunningPods({ runtime }),
    stats: new RuntimeStats({
      runtime,
      nodeName,
      clock,
      podStartTime: (uid) => agent.statuses.status(uid)?.startTime,
      volumes: (uid) => volumeStats?.get(uid),
      logger,
    }),
    containerLogs: new RuntimeContainerLogs({ runtime, pods: agent.pods, clock, logger }),
    commands: new RuntimeCommandRunner({ runtime, pods: agent.pods }),
    streaming: new RuntimeStreaming({ runtime, pods: agent.pods }),
    configz: () => redactConfiguration(config),
    systemLogHandler: config.enableSystemLogHandler,
    // validation refuses enableSystemLogQuery without the NodeLogQuery gate and the log handler
    ...(config.enableSystemLogQuery && config.enableSystemLogHandler
      ? { systemLogQuery: { journalctl: 'journalctl' } }
      : {}),
    ...(profiling !== undefined ? { profiling } : {}),
    ...(debugFlags !== undefined ? { debugFlags } : {}),
    streamingIdleTimeoutMs: durationMs(
      config.streamingConnectionIdleTimeout,
      'streamingConnectionIdleTimeout',
      '--streaming-connection-idle-timeout',
    ),
    ...(config.enableServer ? { secure: await secureSettings(ctx, recorder) } : {}),
    ...(config.enableServer && config.readOnlyPort > 0
      ? { readOnly: { address: config.address, port: config.readOnlyPort } }
      : {}),
    ...(config.healthzPort > 0
      ? { healthz: { address: config.healthzBindAddress, port: config.healthzPort } }
      : {}),
  });
  return { servers, addresses: await servers.start(ctx.signal) };
}
