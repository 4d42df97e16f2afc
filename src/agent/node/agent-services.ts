// Starts the agent's servers, node registration and status, the eviction manager and the event
// recorder from the effective configuration: the one call src/agent.ts makes for them. Every
// loop ends with `signal`; none of them can block pod work (status and events are buffered
// within bounds and dropped with a count when the API server is away).

import { namesFor, type PlatformProfile } from '../../common/names.js';
import { setMaxListeners } from 'node:events';
import { existsSync } from 'node:fs';
import { Registry } from 'prom-client';
import type { NodeAgentConfiguration } from '../config/schema.js';
import type { NodeAgentFlags } from '../config/flags-type.js';
import type { RuntimeBundle } from '../runtime/factory.js';
import type { PodManager } from '../worker/pod-manager.js';
import type { PodStatusManager } from '../worker/status-manager.js';
import { createEventClient, createLeaseClient, createNodeClient, createNodeHeartbeatClient } from '../client/typed-clients.js';
import type { ApiObject } from '../client/types.js';
import { NodeLeaseController, type Lease } from './lease.js';
import { RestClient } from '../client/rest-client.js';
import { redactConfiguration } from '../config/redact.js';
import { tlsOptionsFor } from '../config/tls-ciphers.js';
import type { Logger } from '../../common/log/types.js';
import { loadConnection } from '../../common/platconfig/platconfig.js';
import type { Clock } from '../../common/util/clock.js';
import { ConfigError, userMessage } from '../../common/util/errors.js';
import { parseDurationMs } from '../../common/util/values/duration.js';
import { EvictionManager } from '../eviction/manager.js';
import { HostSignalObserver } from '../eviction/observer.js';
import { RuntimeEvictablePods } from '../eviction/pod-adapter.js';
import { parseThresholds } from '../eviction/thresholds.js';
import { ApiSubjectAccessReviewer, ApiTokenReviewer } from '../server/api-reviewers.js';
import { NodeAgentMetrics, countApiRequests } from '../server/metrics.js';
import { NodeServers, type NodeServersAddresses, type SecureServerSettings } from '../server/node-servers.js';
import { RuntimeCommandRunner, RuntimeContainerLogs, RuntimeRunningPods, RuntimeStats } from '../server/runtime-adapters.js';
import { RuntimeStreaming } from '../server/streaming-adapters.js';
import { eventSinkFrom, nodeApiFrom } from './api-adapters.js';
import { machineFacts, nodeResources } from './capacity.js';
import { EventRecorder } from './events/recorder.js';
import { ClientCertificateWatch } from './events/client-certificate.js';
import type { EventSink, ObjectReference } from './events/types.js';
import { nodeAddresses } from './identity.js';
import { defaultNodeLabels, registrationLabels } from './labels.js';
import { nodeSystemInfo } from './node-info.js';
import { reportPods } from './pod-reporting.js';
import { registerNode, uninitializedTaint } from './registration.js';
import { servingCertificate } from './serving-certificate.js';
import { NodeStatusManager } from './status-manager.js';
import type { Node, Taint } from './types.js';

/** What the services need of the built agent (src/agent/agent.ts's Agent satisfies it). */
export interface ServicesAgent {
  readonly nodeName: string;
  readonly config: NodeAgentConfiguration;
  readonly flags: NodeAgentFlags;
  readonly runtime: RuntimeBundle;
  readonly pods: PodManager;
  readonly statuses: PodStatusManager;
}

export interface AgentServicesInput {
  agent: ServicesAgent;
  clock: Clock;
  logger: Logger;
  signal: AbortSignal;
  /** The metrics registry /metrics serves; parts may register theirs in it. */
  registry?: Registry;
  /** The API client, when another part built one; otherwise one is made from --platconfig. */
  rest?: RestClient;
  agentVersion?: string;
}

export interface AgentServices {
  recorder: EventRecorder;
  addresses: NodeServersAddresses;
  registry: Registry;
  /** Stops the servers and waits for the loops (they also end with the signal). */
  stop(): Promise<void>;
}

function ms(value: string, field: string, flag: string): number {
  try {
    return parseDurationMs(value, flag);
  } catch (err) {
    throw new ConfigError(`invalid configuration: ${field} (${flag}) ${userMessage(err)}`, { field, flag });
  }
}

/** Without an API server, events go to the log only (debug level, as the reference logs them at -v). */
function logSink(logger: Logger): EventSink {
  return {
    create: (_ns, e) => Promise.resolve(void logger.debug({ object: `${e.involvedObject.kind}/${e.involvedObject.name}`, type: e.type, reason: e.reason }, e.message)),
    patch: () => Promise.resolve(),
  };
}

export async function startAgentServices(input: AgentServicesInput): Promise<AgentServices> {
  const { agent, clock, signal } = input;
  const { config, flags, nodeName } = agent;
  const logger = input.logger.child({ part: 'node' });
  // Many loops of many parts wait on the agent's one stop signal.
  setMaxListeners(200, signal);
  const names = namesFor(config.platformProfile as PlatformProfile, config.platformDomain);
  const labels = registrationLabels(names, nodeName, flags.nodeLabels);
  const thresholds = parseThresholds(config);
  const registry = input.registry ?? new Registry();
  const loops: Promise<unknown>[] = [];
  let ownRest: RestClient | undefined;
  let rest = input.rest;
  if (rest === undefined && flags.platconfig !== '' && existsSync(flags.platconfig)) {
    ownRest = new RestClient({ connection: await loadConnection(flags.platconfig), clock, logger: logger.child({ part: 'client' }), qps: config.platAPIQPS, burst: config.platAPIBurst });
    rest = ownRest;
  }
  let servingTtl: (() => number | undefined) | undefined;
  const stops: (() => Promise<void>)[] = [];
  let clientTtl: (() => number | undefined) | undefined;
  const metrics = new NodeAgentMetrics({
    registry,
    servingCertificateTtlSeconds: () => servingTtl?.(),
    ...(rest?.connectionConfig.certPem !== undefined ? { clientCertificateTtlSeconds: () => clientTtl?.() } : {}),
  });
  countApiRequests(metrics, signal);

  // ---- events ----
  const recorder = new EventRecorder({
    sink: rest !== undefined ? eventSinkFrom(createEventClient({ client: rest, clock, logger })) : logSink(logger),
    clock,
    logger: logger.child({ part: 'events' }),
    host: nodeName,
    component: names.agentEventComponent,
    qps: config.eventRecordQPS,
    burst: config.eventBurst,
    onDrop: (reason) => metrics.eventsDropped.inc({ reason }),
  });
  recorder.start(signal);
  const nodeRef: ObjectReference = { kind: 'Node', name: nodeName, uid: nodeName };
  recorder.event(nodeRef, 'Normal', 'Starting', 'Starting nodeagent.');
  if (rest !== undefined) {
    const clientCert = new ClientCertificateWatch({ rest, clock, logger, nodeName, events: recorder });
    clientTtl = () => clientCert.ttlSeconds();
    loops.push(clientCert.run(signal));
  }
  reportPods({
    statuses: agent.statuses,
    pods: agent.pods,
    images: agent.runtime.images,
    containerEvents: (listener) => agent.runtime.runtime.onEvent(listener),
    events: recorder,
    podStartDuration: metrics.podStartDuration,
    clock,
    processStartMs: clock.nowMs() - process.uptime() * 1000,
  });

  // ---- eviction ----
  const eviction = new EvictionManager({
    thresholds,
    observer: new HostSignalObserver({ rootDir: flags.rootDir, imageFs: () => agent.runtime.images.imageFsInfo() }),
    pods: new RuntimeEvictablePods({ pods: agent.pods, statuses: agent.statuses, runtime: agent.runtime.runtime, names }),
    clock,
    logger: logger.child({ part: 'eviction' }),
    pressureTransitionPeriodMs: ms(config.evictionPressureTransitionPeriod, 'evictionPressureTransitionPeriod', '--eviction-pressure-transition-period'),
    maxPodGracePeriodSeconds: config.evictionMaxPodGracePeriod,
    events: recorder,
    nodeName,
  });
  loops.push(eviction.run(signal));

  // ---- node registration and status ----
  if (rest !== undefined && config.registerNode) {
    const api = nodeApiFrom(createNodeClient({ client: rest, clock, logger }), createNodeHeartbeatClient({ client: rest, clock, logger }));
    const taints: Taint[] = (config.registerWithTaints ?? []).map((t) => ({ key: t.key, ...(t.value !== undefined && t.value !== '' ? { value: t.value } : {}), effect: t.effect as Taint['effect'] }));
    if (flags.cloudProvider === 'external' && !taints.some((t) => t.key === uninitializedTaint(names).key)) taints.push(uninitializedTaint(names));
    const facts = await machineFacts(flags.rootDir);
    const runtimeVersion = await agent.runtime.runtime.version().then((v) => `${v.runtimeName}://${v.runtimeVersion}`, () => 'unknown');
    const info = await nodeSystemInfo({ agentVersion: input.agentVersion ?? 'v0.0.0', containerRuntimeVersion: runtimeVersion });
    const nodes = createNodeClient<Node & ApiObject>({ client: rest, clock, logger });
    const lease = new NodeLeaseController({
      leases: createLeaseClient<Lease>({ client: rest, group: names.groups.coordination, clock, logger }),
      nodeUid: async () => (await nodes.get(nodeName)).metadata?.uid,
      nodeName,
      namespace: names.namespaces.nodeLease,
      durationSeconds: config.nodeLeaseDurationSeconds,
      clock,
      logger: logger.child({ part: 'lease' }),
    });
    const status = new NodeStatusManager({
      api,
      clock,
      logger,
      nodeName,
      updateFrequencyMs: ms(config.nodeStatusUpdateFrequency, 'nodeStatusUpdateFrequency', '--node-status-update-frequency'),
      reportFrequencyMs: ms(config.nodeStatusReportFrequency, 'nodeStatusReportFrequency', '--node-status-report-frequency'),
      leaseActive: () => lease.active(),
      maxImages: config.nodeStatusMaxImages,
      daemonPort: config.port,
      events: recorder,
      sources: {
        resources: () => Promise.resolve(nodeResources(facts, { maxPods: config.maxPods, podsPerCore: config.podsPerCore, systemReserved: config.systemReserved, platReserved: config.platReserved, hardThresholds: thresholds })),
        addresses: () => nodeAddresses(flags.nodeIP, nodeName),
        nodeInfo: () => Promise.resolve(info),
        images: async () => (await agent.runtime.images.listImages().catch(() => [])).map((i) => ({ names: i.tags.length > 0 ? i.tags : [i.id], sizeBytes: i.sizeBytes })),
        notReadyReasons: async () => {
          const runtime = agent.runtime.runtime;
          const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 5s')), 5_000).unref());
          try {
            await Promise.race([runtime.version(), timeout]);
            return [];
          } catch (err) {
            return [`container runtime is down: ${userMessage(err)}`];
          }
        },
        pressure: () => {
          const c = eviction.conditions();
          return { memory: c.has('MemoryPressure'), disk: c.has('DiskPressure'), pid: c.has('PIDPressure') };
        },
      },
    });
    const base: Omit<Node, 'status'> = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: nodeName, labels },
      spec: { ...(config.providerID !== '' ? { providerID: config.providerID } : {}), ...(taints.length > 0 ? { taints } : {}) },
    };
    loops.push(
      (async () => {
        await registerNode({ api, clock, logger, node: () => status.nodeForRegistration(base), ownedLabels: defaultNodeLabels(names, nodeName) }, signal);
        recorder.event(nodeRef, 'Normal', 'RegisteredNode', `Node ${nodeName} registered with the API server`);
        await Promise.all([lease.run(signal), status.run(signal)]);
      })().catch((err: unknown) => {
        if (!signal.aborted) logger.error({ err: userMessage(err) }, 'node registration and status loop stopped');
      }),
    );
  } else if (config.registerNode) {
    logger.info({}, 'no API server configured (--platconfig): the node is not registered; running standalone');
  }

  // ---- sync loop health ----
  // The pod manager's housekeeping pass is its sync-loop iteration: /healthz/syncloop and
  // nodeagent_sync_loop_duration_seconds follow it.
  let lastIterationMs: number | undefined;
  agent.pods.onHousekeeping((startedMs, durationMs) => {
    lastIterationMs = startedMs;
    metrics.syncLoopDuration.observe(durationMs / 1000);
  });

  // ---- servers ----
  const servers = new NodeServers({
    syncLoop: { lastIterationMs: () => lastIterationMs },
    nodeName,
    clock,
    logger,
    metrics,
    pods: { pods: () => agent.pods.pods() as unknown as Record<string, unknown>[] },
    runningPods: new RuntimeRunningPods({ runtime: agent.runtime.runtime }),
    stats: new RuntimeStats({ runtime: agent.runtime.runtime, nodeName, clock, podStartTime: (uid) => agent.statuses.status(uid)?.startTime }),
    containerLogs: new RuntimeContainerLogs({ runtime: agent.runtime.runtime, pods: agent.pods, clock }),
    commands: new RuntimeCommandRunner({ runtime: agent.runtime.runtime, pods: agent.pods }),
    streaming: new RuntimeStreaming({ runtime: agent.runtime.runtime, pods: agent.pods }),
    configz: () => redactConfiguration(config),
    streamingIdleTimeoutMs: ms(config.streamingConnectionIdleTimeout, 'streamingConnectionIdleTimeout', '--streaming-connection-idle-timeout'),
    ...(config.enableServer ? { secure: await secureSettings() } : {}),
    ...(config.enableServer && config.readOnlyPort > 0 ? { readOnly: { address: config.address, port: config.readOnlyPort } } : {}),
    ...(config.healthzPort > 0 ? { healthz: { address: config.healthzBindAddress, port: config.healthzPort } } : {}),
  });
  const addresses = await servers.start(signal);

  async function secureSettings(): Promise<SecureServerSettings> {
    const serving = await servingCertificate({
      tlsCertFile: config.tlsCertFile,
      tlsPrivateKeyFile: config.tlsPrivateKeyFile,
      serverTLSBootstrap: config.serverTLSBootstrap,
      certDir: flags.certDir,
      nodeName,
      nodeIps: nodeAddresses(flags.nodeIP, nodeName).filter((a) => a.type === 'InternalIP').map((a) => a.address),
      names,
      rest,
      clock,
      logger,
      signal,
      events: recorder,
    });
    stops.push(() => serving.stop());
    servingTtl = () => serving.ttlSeconds();
    const tls = serving.source;
    const tlsOpts = tlsOptionsFor(config.tlsCipherSuites, config.tlsMinVersion);
    const authn = config.authentication;
    const authz = config.authorization;
    // Without an API server, the webhooks cannot be asked: callers that need them get 500 with
    // the reason (never an allow), and the agent keeps running its pods.
    const noApi = (what: string) => ({
      review: (): Promise<never> => Promise.reject(new Error(`no API server configured (--platconfig) to send the ${what} to`)),
    });
    if (rest === undefined && (authn.webhook.enabled || authz.mode === 'Webhook')) {
      logger.warn({}, 'the token webhook and Webhook authorization need an API server (--platconfig); requests that need them are answered 500');
    }
    const tokenReviewer = rest !== undefined ? new ApiTokenReviewer({ rest, names }) : noApi('TokenReview');
    const sarReviewer = rest !== undefined ? new ApiSubjectAccessReviewer({ rest, names }) : noApi('SubjectAccessReview');
    return {
      address: config.address,
      port: config.port,
      tls,
      tlsMinVersion: config.tlsMinVersion,
      ...(tlsOpts.ciphers !== undefined ? { tlsCipherSuites: tlsOpts.ciphers.split(':') } : {}),
      enableDebuggingHandlers: config.enableDebuggingHandlers,
      clientCaFile: authn.x509.clientCAFile,
      anonymous: authn.anonymous.enabled,
      ...(authn.webhook.enabled
        ? { tokenWebhook: { reviewer: tokenReviewer, cacheTtlMs: ms(authn.webhook.cacheTTL, 'authentication.webhook.cacheTTL', '--authentication-token-webhook-cache-ttl') } }
        : {}),
      authorization:
        authz.mode === 'Webhook'
          ? {
              mode: 'Webhook',
              reviewer: sarReviewer,
              authorizedTtlMs: ms(authz.webhook.cacheAuthorizedTTL, 'authorization.webhook.cacheAuthorizedTTL', '--authorization-webhook-cache-authorized-ttl'),
              unauthorizedTtlMs: ms(authz.webhook.cacheUnauthorizedTTL, 'authorization.webhook.cacheUnauthorizedTTL', '--authorization-webhook-cache-unauthorized-ttl'),
            }
          : { mode: 'AlwaysAllow' },
    };
  }

  return {
    recorder,
    addresses,
    registry,
    async stop() {
      await servers.stop();
      await Promise.allSettled(stops.map((f) => f()));
      await Promise.allSettled(loops);
      await recorder.stopped();
      await ownRest?.close();
    },
  };
}
