// The node lifecycle controller, as the reference's (kube-controller-manager's nodelifecycle): a
// node is healthy while its Lease is renewed or its status is posted; the controller notes the
// time (its own Clock) at which it last saw either change. When both went stale for
// --node-monitor-grace-period, the node's conditions become Unknown (reason NodeStatusUnknown,
// message "Kubelet stopped posting node status.") and it is tainted unreachable (NoSchedule and
// NoExecute). When the agent posts a Ready condition that is not Unknown again, the taints go.

import type { Logger } from '../../common/log/types.js';
import { REFERENCE_NAMES, type Names } from '../../common/names.js';
import type { Clock } from '../../common/util/clock.js';
import type { Registry } from '../registry/registry.js';
import { metaOf, objAt, str, type Obj, type ResourceDef } from '../registry/types.js';
import { RowFacts } from './row-facts.js';
import type { UserInfo } from '../../common/auth/user.js';
import { userMessage } from '../../common/util/errors.js';
import { listOf, isRecord } from '../../common/util/json-shape.js';

export const NODE_STATUS_UNKNOWN_REASON = 'NodeStatusUnknown';
export const NODE_STATUS_UNKNOWN_MESSAGE = 'Kubelet stopped posting node status.';
export const NODE_STATUS_NEVER_POSTED_MESSAGE = 'Kubelet never posted node status.';
const WATCHED_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];
const CONTROLLER_USER: UserInfo = {
  username: `system:serviceaccount:${REFERENCE_NAMES.namespaces.system}:node-controller`,
  groups: ['system:serviceaccounts', 'system:masters'],
};

export interface NodeLifecycleOptions {
  readonly registry: Registry;
  readonly nodeDef: ResourceDef;
  readonly leaseDef: ResourceDef;
  readonly names: Names;
  readonly gracePeriodMs: number;
  /** How often nodes are checked (the reference's --node-monitor-period, 5s). */
  readonly monitorPeriodMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

interface Health {
  /** What was last seen: the Ready heartbeat and the lease renewTime. */
  heartbeat: string;
  renew: string;
  /** Controller clock time at which either last changed. */
  probeMs: number;
}

type Condition = Record<string, unknown>;

function conditionsOf(node: Obj): Condition[] {
  const c = objAt(node, 'status')?.['conditions'];
  return listOf(c).filter(isRecord);
}

function taintsOf(node: Obj): Condition[] {
  const t = objAt(node, 'spec')?.['taints'];
  return listOf(t).filter(isRecord);
}

/** What a pass reads of a Lease. */
interface LeaseFact {
  readonly name: string;
  readonly renew: string;
}

/** What a pass reads of a Node. */
interface NodeFact {
  readonly name: string;
  /** The Ready condition's status and heartbeat; status undefined when it has none. */
  readonly ready: string | undefined;
  readonly heartbeat: string;
  /** It carries an unreachable taint (either effect). */
  readonly unreachable: boolean;
}

function leaseFact(l: Obj): LeaseFact {
  return {
    name: str(metaOf(l)['name']) ?? '',
    renew: str(objAt(l, 'spec')?.['renewTime']) ?? '',
  };
}

function nodeFact(node: Obj, unreachableKey: string): NodeFact {
  const ready = conditionsOf(node).find((c) => c['type'] === 'Ready');
  return {
    name: str(metaOf(node)['name']) ?? '',
    ready: ready === undefined ? undefined : (str(ready['status']) ?? ''),
    heartbeat: str(ready?.['lastHeartbeatTime']) ?? '',
    unreachable: taintsOf(node).some((t) => t['key'] === unreachableKey),
  };
}

export class NodeLifecycleController {
  private readonly health = new Map<string, Health>();
  private readonly leases: RowFacts<LeaseFact>;
  private readonly nodes: RowFacts<NodeFact>;

  constructor(private readonly o: NodeLifecycleOptions) {
    const { registry, names } = o;
    const leasePrefix = registry.prefix(o.leaseDef, names.namespaces.nodeLease);
    const unreadable = (key: string, rv: number, err: unknown): void =>
      o.logger.warn(
        { key, resourceVersion: rv, err: userMessage(err) },
        'node lifecycle: cannot read this object; each pass leaves it out while it cannot be read',
      );
    this.leases = new RowFacts(registry.store, leasePrefix, leaseFact, unreadable);
    this.nodes = new RowFacts(
      registry.store,
      registry.prefix(o.nodeDef, ''),
      (n) => nodeFact(n, names.taints.unreachable),
      unreadable,
    );
  }

  /** One pass over every node. */
  async monitor(): Promise<void> {
    const now = this.o.clock.nowMs();
    const leases = new Map<string, string>();
    for (const l of await this.leases.read()) leases.set(l.name, l.renew);
    const seen = new Set<string>();
    for (const node of await this.nodes.read()) {
      seen.add(node.name);
      await this.check(node, leases.get(node.name) ?? '', now);
    }
    for (const name of [...this.health.keys()]) if (!seen.has(name)) this.health.delete(name);
  }

  /** One node: Unknown and tainted once stale; its taints removed once it is back. */
  private async check(node: NodeFact, renew: string, now: number): Promise<void> {
    const { name, heartbeat } = node;
    const h = this.health.get(name);
    if (h?.heartbeat !== heartbeat || h.renew !== renew) {
      this.health.set(name, { heartbeat, renew, probeMs: now });
    }
    const probeMs = this.health.get(name)?.probeMs ?? now;
    try {
      if (now - probeMs >= this.o.gracePeriodMs)
        await this.markUnknown(name, node.ready === undefined);
      else if (node.ready !== undefined && node.ready !== 'Unknown' && node.unreachable)
        await this.clearUnreachable(name);
    } catch (err) {
      this.o.logger.warn(
        { node: name, err: userMessage(err) },
        'node lifecycle: cannot update the node; retrying at the next pass',
      );
    }
  }

  private write(subresource: string): {
    user: UserInfo;
    dryRun: false;
    fieldManager: string;
    subresource: string;
  } {
    return {
      user: CONTROLLER_USER,
      dryRun: false,
      fieldManager: 'node-lifecycle-controller',
      subresource,
    };
  }

  private async markUnknown(name: string, neverPosted: boolean): Promise<void> {
    const now = new Date(this.o.clock.nowMs()).toISOString().replace(/\.\d+Z$/, 'Z');
    let changed = false;
    await this.o.registry.update(this.o.nodeDef, '', name, this.write('status'), (cur) => {
      if (cur === undefined) return {};
      const status = objAt(cur, 'status') ?? {};
      const conds = conditionsOf(cur);
      const message = neverPosted ? NODE_STATUS_NEVER_POSTED_MESSAGE : NODE_STATUS_UNKNOWN_MESSAGE;
      for (const type of WATCHED_CONDITIONS) {
        const c = conds.find((x) => x['type'] === type);
        if (c === undefined) {
          conds.push({
            type,
            status: 'Unknown',
            reason: NODE_STATUS_UNKNOWN_REASON,
            message,
            lastHeartbeatTime: now,
            lastTransitionTime: now,
          });
          changed = true;
        } else if (c['status'] !== 'Unknown') {
          Object.assign(c, {
            status: 'Unknown',
            reason: NODE_STATUS_UNKNOWN_REASON,
            message,
            lastTransitionTime: now,
          });
          changed = true;
        }
      }
      return { ...cur, status: { ...status, conditions: conds } };
    });
    const added = await this.setUnreachableTaints(name, true);
    // `changed` is set inside the update callback above
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
    if (changed || added)
      this.o.logger.info(
        { node: name },
        `node ${name} stopped renewing its lease and posting its status: marked Unknown ` +
          `and tainted ${this.o.names.taints.unreachable}`,
      );
  }

  private async clearUnreachable(name: string): Promise<void> {
    if (await this.setUnreachableTaints(name, false))
      this.o.logger.info(
        { node: name },
        `node ${name} is back: ${this.o.names.taints.unreachable} taints removed`,
      );
  }

  /** Adds (or removes) the two unreachable taints; true when the node changed. */
  private async setUnreachableTaints(name: string, present: boolean): Promise<boolean> {
    const key = this.o.names.taints.unreachable;
    const current = await this.o.registry.get(this.o.nodeDef, '', name);
    const taints = taintsOf(current);
    const has = (effect: string) => taints.some((t) => t['key'] === key && t['effect'] === effect);
    const needed = present
      ? !has('NoSchedule') || !has('NoExecute')
      : has('NoSchedule') || has('NoExecute');
    if (!needed) return false;
    const timeAdded = new Date(this.o.clock.nowMs()).toISOString().replace(/\.\d+Z$/, 'Z');
    await this.o.registry.update(this.o.nodeDef, '', name, this.write(''), (cur) => {
      if (cur === undefined) return {};
      const kept = taintsOf(cur).filter((t) => t['key'] !== key);
      const next = present
        ? [...kept, { key, effect: 'NoSchedule' }, { key, effect: 'NoExecute', timeAdded }]
        : kept;
      const spec = { ...(objAt(cur, 'spec') ?? {}) };
      if (next.length > 0) spec['taints'] = next;
      else delete spec['taints'];
      return { ...cur, spec };
    });
    return true;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.monitor().catch((err: unknown) =>
        this.o.logger.warn({ err: userMessage(err) }, 'node lifecycle pass failed; retrying'),
      );
      await this.o.clock.sleep(this.o.monitorPeriodMs, signal).catch(() => undefined);
    }
  }
}
