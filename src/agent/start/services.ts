// Starts the agent's servers, node registration and status, the eviction manager and the event
// recorder from the effective configuration: the one call runAgent (agent.ts) makes for them.
// Every loop ends with `signal`; none of them can block pod work (status and events are buffered
// within bounds and dropped with a count when the API server is away). Each service is built in
// its own file under services/.

import { setMaxListeners } from 'node:events';
import { Registry } from 'prom-client';
import type { RestClient } from '../client/rest-client.js';
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { parseThresholds } from '../eviction/thresholds.js';
import { NodeAgentMetrics, countApiRequests } from '../server/metrics.js';
import type { NodeServersAddresses } from '../server/node-servers.js';
import type { EventRecorder } from '../node/events/recorder.js';
import { registrationLabels } from '../node/labels.js';
import type { ServicesAgent, ServicesContext } from './services/context.js';
import { startEvents } from './services/events.js';
import { startEviction } from './services/eviction.js';
import { startNetworkUtil } from './services/network.js';
import { startNodeStatus, type NodeStatusInput } from './services/node-status.js';
import { startServers } from './services/servers.js';
import { startShutdown } from './services/shutdown.js';
import { startVolumeStats } from './services/volume-stats.js';

export type { ServicesAgent } from './services/context.js';

export interface AgentServicesInput {
  agent: ServicesAgent;
  clock: Clock;
  logger: Logger;
  signal: AbortSignal;
  /** The metrics registry /metrics serves; parts may register theirs in it. */
  registry?: Registry;
  /**
   * The agent's API client (built with the client certificates), when it talks to an API server.
   */
  rest?: RestClient | undefined;
  agentVersion?: string;
}

export interface AgentServices {
  recorder: EventRecorder;
  addresses: NodeServersAddresses;
  registry: Registry;
  /** Stops the servers and waits for the loops (they also end with the signal). */
  stop(): Promise<void>;
}

/** The services' shared context: the agent's API client (when it has one) and the metrics. */
function servicesContext(input: AgentServicesInput, registry: Registry): ServicesContext {
  const { agent, clock, signal, rest } = input;
  const { config, flags, nodeName, names } = agent;
  const logger = input.logger.child({ part: 'node' });
  const ttl: ServicesContext['ttl'] = {};
  const metrics = new NodeAgentMetrics({
    registry,
    servingCertificateTtlSeconds: () => ttl.serving?.(),
    ...(rest?.connectionConfig.certPem !== undefined
      ? { clientCertificateTtlSeconds: () => ttl.client?.() }
      : {}),
  });
  countApiRequests(metrics, signal);
  return {
    agent,
    config,
    flags,
    nodeName,
    names,
    clock,
    logger,
    signal,
    rest,
    metrics,
    loops: [],
    stops: [],
    ttl,
  };
}

/**
 * Registers the node and reports its status when an API server is configured and registerNode
 * is on; otherwise says why not.
 */
async function startRegistration(
  ctx: ServicesContext,
  input: Omit<NodeStatusInput, 'labels'>,
): Promise<void> {
  if (ctx.rest !== undefined && ctx.config.podCIDR !== '') {
    ctx.logger.warn(
      { option: '--pod-cidr', podCIDR: ctx.config.podCIDR },
      "--pod-cidr is ignored with an API server: the pod CIDR is the node's " +
        'spec.podCIDR(s), set by the control plane (--pod-cidr is for standalone mode only)',
    );
  }
  if (ctx.rest !== undefined && ctx.config.registerNode) {
    const labels = registrationLabels(ctx.names, ctx.nodeName, ctx.flags.nodeLabels);
    await startNodeStatus(ctx, ctx.rest, { ...input, labels });
  } else if (ctx.config.registerNode) {
    ctx.logger.info(
      {},
      'no API server configured (--platconfig): the node is not registered; running standalone',
    );
  } else {
    ctx.logger.info(
      { option: '--register-node' },
      'registerNode is false (--register-node=false): the node is not registered and ' +
        'its status is not reported',
    );
  }
}

/**
 * The pod manager's housekeeping pass is its sync-loop iteration: /healthz/syncloop and
 * nodeagent_sync_loop_duration_seconds follow it. Returns when the last one started.
 */
function followSyncLoop(ctx: ServicesContext, agent: ServicesAgent): () => number | undefined {
  let lastIterationMs: number | undefined;
  agent.pods.onHousekeeping((startedMs, durationMs) => {
    lastIterationMs = startedMs;
    ctx.metrics.syncLoopDuration.observe(durationMs / 1000);
  });
  return () => lastIterationMs;
}

export async function startAgentServices(input: AgentServicesInput): Promise<AgentServices> {
  // Many loops of many parts wait on the agent's one stop signal.
  setMaxListeners(200, input.signal);
  const registry = input.registry ?? new Registry();
  const ctx = servicesContext(input, registry);
  const thresholds = parseThresholds(ctx.config);
  const recorder = startEvents(ctx);
  const volumeStats = startVolumeStats(ctx);
  const eviction = startEviction(ctx, thresholds, recorder, volumeStats);
  startNetworkUtil(ctx);
  const shutdown = startShutdown(ctx, recorder);
  await startRegistration(ctx, {
    thresholds,
    recorder,
    eviction,
    agentVersion: input.agentVersion ?? 'v0.0.0',
    shutdown,
  });
  const lastIteration = followSyncLoop(ctx, input.agent);
  const { servers, addresses } = await startServers(ctx, recorder, lastIteration, volumeStats);
  return {
    recorder,
    addresses,
    registry,
    async stop() {
      await servers.stop();
      await Promise.allSettled(ctx.stops.map((f) => f()));
      await Promise.allSettled(ctx.loops);
      await recorder.stopped();
    },
  };
}
