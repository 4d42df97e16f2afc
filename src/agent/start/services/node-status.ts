// Node registration, the node lease and node status: registered once, then the lease renews
// (the heartbeat) and the status is sent when it changes and at the report frequency.
import { userMessage } from '../../../common/util/errors.js';
import { isOneOf } from '../../../common/util/json-shape.js';
import { TAINT_EFFECTS } from '../../../common/util/values/taints.js';
import {
  createLeaseClient,
  createNodeClient,
  createNodeHeartbeatClient,
} from '../../client/typed-clients.js';
import { durationMs } from '../../config/duration-field.js';
import type { EvictionManager } from '../../eviction/manager.js';
import type { Threshold } from '../../eviction/thresholds.js';
import type { RestClient } from '../../client/rest-client.js';
import { nodeApiFrom } from '../../node/api-adapters.js';
import { allocatableThresholds, machineFacts, nodeResources } from '../../node/capacity.js';
import type { EventRecorder } from '../../node/events/recorder.js';
import { nodeAddresses } from '../../node/identity.js';
import { defaultNodeLabels } from '../../node/labels.js';
import { LeaseSchema, NodeLeaseController } from '../../node/lease.js';
import { ApiNodeSchema, type ApiNode } from '../../node/api-node.js';
import { KUBELET_WORDING, NODE_AGENT_WORDING } from '../../node/conditions.js';
import { addressesToSend, providedNodeIp, type AddressPolicy } from '../../node/cloud-addresses.js';
import { nodeSystemInfo, runtimeVersionText } from '../../node/node-info.js';
import {
  attachDetachAnnotations,
  registerNode,
  uninitializedTaint,
} from '../../node/registration.js';
import { NodeStatusManager, type NodeStatusSources } from '../../node/status-manager.js';
import type { Node, NodeApi, Taint } from '../../node/types.js';
import type { ServicesContext } from './context.js';
import { reservationsOf } from '../../cm/reservation.js';
import { nodeReference } from './events.js';

export interface NodeStatusInput {
  readonly labels: Record<string, string>;
  readonly thresholds: Threshold[];
  readonly recorder: EventRecorder;
  readonly eviction: EvictionManager;
  readonly agentVersion: string;
  /** Graceful node shutdown: NotReady while the node shuts down, the status sent at once. */
  readonly shutdown?:
    { shutdownStatus(): string | undefined; syncNodeStatus: (() => void) | undefined } | undefined;
}

/** --register-with-taints, plus the uninitialized taint for an external cloud provider. */
function registrationTaints(ctx: ServicesContext): Taint[] {
  // validateTaints refused any other effect, so none is dropped here.
  const taints: Taint[] = ctx.config.registerWithTaints.flatMap((t) =>
    isOneOf(TAINT_EFFECTS, t.effect)
      ? [
          {
            key: t.key,
            ...(t.value !== undefined && t.value !== '' ? { value: t.value } : {}),
            effect: t.effect,
          },
        ]
      : [],
  );
  const uninitialized = uninitializedTaint(ctx.names);
  if (ctx.flags.cloudProvider === 'external' && !taints.some((t) => t.key === uninitialized.key))
    taints.push(uninitialized);
  return taints;
}

/** Does the container runtime answer within 5 s? A reason the node is not ready when not. */
async function runtimeDown(ctx: ServicesContext): Promise<string[]> {
  const stop = new AbortController();
  const timeout = ctx.clock
    .sleep(5_000, stop.signal)
    .then(() => Promise.reject(new Error('no answer within 5s')));
  try {
    await Promise.race([ctx.agent.runtime.runtime.version(), timeout]);
    return [];
  } catch (err) {
    return [`container runtime is down: ${userMessage(err)}`];
  } finally {
    stop.abort();
    timeout.catch(() => undefined);
  }
}

const UNKNOWN_RUNTIME = 'unknown';

/** What the node status reports, read when each status is built. */
async function statusSources(
  ctx: ServicesContext,
  input: NodeStatusInput,
): Promise<NodeStatusSources> {
  const { agent, config, flags } = ctx;
  const facts = await machineFacts(flags.rootDir);
  const infoNow = async () =>
    nodeSystemInfo({
      agentVersion: input.agentVersion,
      containerRuntimeVersion: await agent.runtime.runtime.version().then(
        (v) => runtimeVersionText(v.runtimeName, v.runtimeVersion),
        () => UNKNOWN_RUNTIME,
      ),
    });
  let info = await infoNow();
  return {
    resources: () => {
      const r = nodeResources(facts, {
        maxPods: config.maxPods,
        podsPerCore: config.podsPerCore,
        ...reservationsOf(config),
        hardThresholds: allocatableThresholds(
          input.thresholds,
          flags.experimentalAllocatableIgnoreEviction,
        ),
        localStorageCapacityIsolation: config.localStorageCapacityIsolation,
      });
      // the downward API's default limits and tmpfs sizes are the node's allocatable
      agent.volumes.setAllocatable(r.allocatable);
      return Promise.resolve(r);
    },
    addresses: (onServer) => addressesToSend(addressPolicy(ctx), onServer),
    // a runtime down at start is asked again until it answers
    nodeInfo: async () => {
      if (info.containerRuntimeVersion === UNKNOWN_RUNTIME) info = await infoNow();
      return info;
    },
    images: async () =>
      (await agent.runtime.images.listImages().catch(() => [])).map((i) => ({
        names: i.tags.length > 0 ? i.tags : [i.id],
        sizeBytes: i.sizeBytes,
      })),
    notReadyReasons: async () => [
      ...(await runtimeDown(ctx)),
      ...[input.shutdown?.shutdownStatus()].filter((r) => r !== undefined),
    ],
    pressure: () => {
      const c = input.eviction.conditions();
      return {
        memory: c.has('MemoryPressure'),
        disk: c.has('DiskPressure'),
        pid: c.has('PIDPressure'),
      };
    },
  };
}

/** The node's Lease, renewed while the agent runs. */
function nodeLease(
  ctx: ServicesContext,
  rest: RestClient,
  nodeUid: (signal?: AbortSignal) => Promise<string | undefined>,
): NodeLeaseController {
  const { config, clock, logger, names, nodeName } = ctx;
  return new NodeLeaseController({
    leases: createLeaseClient({
      client: rest,
      schema: LeaseSchema,
      group: names.groups.coordination,
      clock,
      logger,
    }),
    nodeUid,
    nodeName,
    namespace: names.namespaces.nodeLease,
    durationSeconds: config.nodeLeaseDurationSeconds,
    clock,
    logger: logger.child({ part: 'lease' }),
  });
}

function addressPolicy(ctx: ServicesContext): AddressPolicy {
  const { flags, nodeName } = ctx;
  return {
    external: flags.cloudProvider === 'external',
    nodeIp: flags.nodeIP,
    host: nodeName,
    own: () => nodeAddresses(flags.nodeIP, nodeName),
  };
}

/** The new node's annotations: attach/detach by the controller, and provided-node-ip. */
function nodeAnnotations(ctx: ServicesContext): { annotations?: Record<string, string> } {
  const { config, flags, logger, names } = ctx;
  const provided = providedNodeIp(flags.cloudProvider === 'external', flags.nodeIP);
  const cmad = attachDetachAnnotations(config.enableControllerAttachDetach, names, logger);
  if (provided === undefined) return cmad;
  return { annotations: { ...cmad.annotations, [names.annotations.providedNodeIp]: provided } };
}

/** The Node object as registered, less its status: labels, annotations, providerID, taints. */
function nodeWithoutStatus(ctx: ServicesContext, input: NodeStatusInput): Omit<Node, 'status'> {
  const { config, nodeName } = ctx;
  const taints = registrationTaints(ctx);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: nodeName,
      labels: input.labels,
      ...nodeAnnotations(ctx),
    },
    spec: {
      ...(config.providerID !== '' ? { providerID: config.providerID } : {}),
      ...(taints.length > 0 ? { taints } : {}),
    },
  };
}

/** Creates the Node (or takes over an existing one), then says so in a RegisteredNode event. */
async function registerAndSay(
  ctx: ServicesContext,
  input: NodeStatusInput,
  api: NodeApi,
  node: () => Promise<Node>,
  signal: AbortSignal,
): Promise<ApiNode> {
  const { clock, logger, names, nodeName } = ctx;
  const registered = await registerNode(
    {
      api,
      clock,
      logger,
      node,
      ownedLabels: defaultNodeLabels(names, nodeName),
      attachDetachAnnotation: names.annotations.controllerManagedAttachDetach,
      ownedAnnotations: [names.annotations.providedNodeIp],
    },
    signal,
  );
  input.recorder.event(
    nodeReference(nodeName),
    'Normal',
    'RegisteredNode',
    `Node ${nodeName} registered with the API server`,
  );
  return registered;
}

/** The node status loop: heartbeats at the update frequency, full reports at the report one. */
async function nodeStatusManager(
  ctx: ServicesContext,
  input: NodeStatusInput,
  parts: { api: NodeApi; lease: NodeLeaseController },
  reregister: (signal?: AbortSignal) => Promise<void>,
): Promise<NodeStatusManager> {
  const { config, clock, logger, nodeName } = ctx;
  return new NodeStatusManager({
    api: parts.api,
    clock,
    logger,
    nodeName,
    updateFrequencyMs: durationMs(
      config.nodeStatusUpdateFrequency,
      'nodeStatusUpdateFrequency',
      '--node-status-update-frequency',
    ),
    reportFrequencyMs: durationMs(
      config.nodeStatusReportFrequency,
      'nodeStatusReportFrequency',
      '--node-status-report-frequency',
    ),
    leaseActive: () => parts.lease.active(),
    maxImages: config.nodeStatusMaxImages,
    daemonPort: config.port,
    events: input.recorder,
    wording: ctx.names.profile === 'kubernetes' ? KUBELET_WORDING : NODE_AGENT_WORDING,
    sources: await statusSources(ctx, input),
    reregister,
  });
}

/** Registers the node, then runs the lease and the status loops until the signal. */
export async function startNodeStatus(
  ctx: ServicesContext,
  rest: RestClient,
  input: NodeStatusInput,
): Promise<void> {
  const { clock, logger, nodeName, signal } = ctx;
  const nodes = createNodeClient({ client: rest, schema: ApiNodeSchema, clock, logger });
  const api = nodeApiFrom(
    nodes,
    createNodeHeartbeatClient({ client: rest, schema: ApiNodeSchema, clock, logger }),
  );
  const lease = nodeLease(
    ctx,
    rest,
    async (s) => (await nodes.get(nodeName, s ? { signal: s } : {})).metadata.uid,
  );
  const base = nodeWithoutStatus(ctx, input);
  const register = async (s: AbortSignal): Promise<void> => {
    status.observe(
      await registerAndSay(ctx, input, api, () => status.nodeForRegistration(base), s),
    );
  };
  // reregister is called from a status update, after registration (below) has run once.
  const status = await nodeStatusManager(ctx, input, { api, lease }, (s) => register(s ?? signal));
  if (input.shutdown !== undefined) input.shutdown.syncNodeStatus = () => void status.tick(signal);
  ctx.loops.push(
    (async () => {
      await register(signal);
      await Promise.all([lease.run(signal), status.run(signal)]);
    })().catch((err: unknown) => {
      if (!signal.aborted)
        logger.error({ err: userMessage(err) }, 'node registration and status loop stopped');
    }),
  );
}
