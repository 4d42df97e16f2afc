// Node status: computed every --node-status-update-frequency (capacity and allocatable, the four
// conditions, addresses, nodeInfo, images) and sent to the API server when it changed or at least
// every --node-status-report-frequency while the node lease is the heartbeat (every update
// otherwise, as the reference did before leases); an update with nothing to send reads the Node,
// so one gone from the server is registered again within an update period. Sending never blocks
// anything else: only the latest status waits to be sent (an older unsent one is superseded and
// counted as dropped) and a failed send is retried at the next tick. Ready/NotReady and pressure transitions are reported as node events.

import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { isNotFound, userMessage } from '../../common/util/errors.js';
import {
  computeConditions,
  conditionsChanged,
  transitionEventReason,
  type ConditionInputs,
  type ConditionWording,
} from './conditions.js';
import { nodeStatusPatch } from './status-patch.js';
import type { NodeResources } from './capacity.js';
import type { ApiNode, ApiNodeAddress } from './api-node.js';
import type {
  ContainerImage,
  Node,
  NodeAddress,
  NodeApi,
  NodeCondition,
  NodeStatus,
  NodeSystemInfo,
} from './types.js';

/** The reference's nodeStatusReportFrequency default. */
export const STATUS_REPORT_FREQUENCY_MS = 5 * 60_000;

export interface NodeEventSink {
  event(
    obj: { kind: string; name: string; uid?: string; namespace?: string },
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): void;
}

export interface NodeStatusSources {
  resources(): Promise<NodeResources>;
  /**
   * The addresses to send, given the Node's on the server (undefined before the agent has seen
   * the Node); undefined leaves the Node's addresses alone.
   */
  addresses(onServer: readonly ApiNodeAddress[] | undefined): NodeAddress[] | undefined;
  nodeInfo(): Promise<NodeSystemInfo>;
  /** Images on the node (any order); empty when unknown. */
  images?(): Promise<ContainerImage[]>;
  /** Pressure conditions (from the eviction manager). */
  pressure(): { memory: boolean; disk: boolean; pid: boolean };
  /** Why the node is not ready (runtime down ...); empty when ready. */
  notReadyReasons?(): readonly string[] | Promise<readonly string[]>;
}

export interface NodeStatusManagerOptions {
  api: NodeApi;
  clock: Clock;
  logger: Logger;
  nodeName: string;
  sources: NodeStatusSources;
  /** --node-status-update-frequency. */
  updateFrequencyMs: number;
  /** --node-status-max-images; -1 means no cap. */
  maxImages: number;
  /** --node-status-report-frequency (default 5m). */
  reportFrequencyMs?: number;
  /** Whether the node lease is the heartbeat now; without one, every update is sent. */
  leaseActive?: () => boolean;
  /** --port, reported as daemonEndpoints.kubeletEndpoint.Port. */
  daemonPort: number;
  events?: NodeEventSink;
  /** The conditions' reasons and messages (the platform profile's when not given). */
  wording?: ConditionWording;
  /**
   * Registers the node again when a status update finds it gone (deleted, or an API server that
   * lost its data came back): the agent recovers without a restart.
   */
  reregister?: (signal?: AbortSignal) => Promise<void>;
}

export function topImages(images: readonly ContainerImage[], max: number): ContainerImage[] {
  const sorted = [...images].sort((a, b) => b.sizeBytes - a.sizeBytes);
  return max < 0 ? sorted : sorted.slice(0, max);
}

export class NodeStatusManager {
  private lastSent: { status: NodeStatus; atMs: number } | undefined;
  private conditions: NodeCondition[] | undefined;
  private pending: NodeStatus | undefined;
  /** The Node's addresses as the API server last answered them. */
  private serverAddresses: readonly ApiNodeAddress[] | undefined;
  /** Status updates superseded before they could be sent (API server unreachable). */
  dropped = 0;
  sent = 0;
  failures = 0;

  constructor(private readonly o: NodeStatusManagerOptions) {}

  /** The full status as of now (also the initial status at registration). */
  async computeStatus(): Promise<NodeStatus> {
    const s = this.o.sources;
    const p = s.pressure();
    const inputs: ConditionInputs = {
      memoryPressure: p.memory,
      diskPressure: p.disk,
      pidPressure: p.pid,
      notReadyReasons: (await s.notReadyReasons?.()) ?? [],
    };
    const conditions = computeConditions(
      this.conditions,
      inputs,
      this.o.clock.now(),
      this.o.wording,
    );
    this.reportTransitions(this.conditions, conditions);
    this.conditions = conditions;
    const resources = await s.resources();
    const addresses = s.addresses(this.serverAddresses);
    return {
      capacity: resources.capacity,
      allocatable: resources.allocatable,
      conditions,
      ...(addresses !== undefined ? { addresses } : {}),
      daemonEndpoints: { kubeletEndpoint: { Port: this.o.daemonPort } },
      nodeInfo: await s.nodeInfo(),
      images: topImages((await s.images?.()) ?? [], this.o.maxImages),
    };
  }

  /** One tick: compute, and send when changed or due. Never throws. */
  async tick(signal?: AbortSignal): Promise<void> {
    let status: NodeStatus;
    try {
      status = await this.computeStatus();
    } catch (err) {
      this.o.logger.error(
        { err: userMessage(err) },
        'cannot compute the node status; retrying at the next update',
      );
      return;
    }
    const now = this.o.clock.nowMs();
    const leased = this.o.leaseActive?.() ?? true;
    const maxAgeMs = leased
      ? (this.o.reportFrequencyMs ?? STATUS_REPORT_FREQUENCY_MS)
      : this.o.updateFrequencyMs;
    const due =
      this.lastSent === undefined ||
      now - this.lastSent.atMs >= maxAgeMs ||
      this.changed(this.lastSent.status, status);
    if (!due && this.pending === undefined) {
      await this.checkRegistered(signal);
      return;
    }
    if (this.pending !== undefined) this.dropped++;
    this.pending = status;
    try {
      this.observe(await this.o.api.patchStatus(this.o.nodeName, nodeStatusPatch(status), signal));
      this.lastSent = { status, atMs: now };
      this.pending = undefined;
      this.sent++;
    } catch (err) {
      this.failures++;
      if (isNotFound(err) && this.o.reregister !== undefined) {
        await this.registerAgain(err, signal);
        return;
      }
      this.o.logger.warn(
        { node: this.o.nodeName, err: userMessage(err), droppedSoFar: this.dropped },
        'error updating node status, will retry at the next update',
      );
    }
  }

  /**
   * An update with nothing to send still reads the Node, as the reference reads it every
   * nodeStatusUpdateFrequency before deciding to patch, and from the server's cache as it does
   * (resourceVersion=0): a node deleted, or lost by an API server that restarted empty, is
   * registered again within one update period, not at the next report (5 minutes while the lease
   * is the heartbeat). Other failures wait for the next update (the lease says when the server is
   * unreachable).
   */
  private async checkRegistered(signal?: AbortSignal): Promise<void> {
    if (this.o.reregister === undefined) return;
    try {
      this.observe(await this.o.api.get(this.o.nodeName, signal, { cached: true }));
    } catch (err) {
      if (isNotFound(err)) await this.registerAgain(err, signal);
      else
        this.o.logger.debug(
          { node: this.o.nodeName, err: userMessage(err) },
          'reading the node failed',
        );
    }
  }

  /** The node is gone from the API server: register it again, its status sent with it. */
  private async registerAgain(err: unknown, signal?: AbortSignal): Promise<void> {
    this.o.logger.warn(
      { node: this.o.nodeName, err: userMessage(err) },
      'node not found on the API server (deleted, or the server lost its data); ' +
        'registering it again',
    );
    try {
      await this.o.reregister?.(signal);
      this.lastSent = undefined;
      this.pending = undefined;
    } catch (again) {
      this.o.logger.warn(
        { node: this.o.nodeName, err: userMessage(again) },
        'registering the node again failed; retrying at the next update',
      );
    }
  }

  /** The Node as the API server answered it (registration, a status update, a read). */
  observe(node: ApiNode): void {
    this.serverAddresses = node.status?.addresses;
  }

  /** Runs until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.tick(signal);
      await this.o.clock.sleep(this.o.updateFrequencyMs, signal).catch(() => undefined);
    }
  }

  /** The node object to register (status included). */
  async nodeForRegistration(base: Omit<Node, 'status'>): Promise<Node> {
    return { ...base, status: await this.computeStatus() };
  }

  private changed(a: NodeStatus, b: NodeStatus): boolean {
    if (conditionsChanged(a.conditions, b.conditions)) return true;
    const strip = (s: NodeStatus): string => JSON.stringify({ ...s, conditions: undefined });
    return strip(a) !== strip(b);
  }

  private reportTransitions(
    prev: readonly NodeCondition[] | undefined,
    next: readonly NodeCondition[],
  ): void {
    const ev = this.o.events;
    if (ev === undefined) return;
    const ref = { kind: 'Node', name: this.o.nodeName, uid: this.o.nodeName };
    for (const c of next) {
      const p = prev?.find((x) => x.type === c.type);
      if (p?.status === c.status) continue;
      const reason = transitionEventReason(c.type, c.status);
      ev.event(ref, 'Normal', reason, `Node ${this.o.nodeName} status is now: ${reason}`);
    }
  }
}
