// A scheduler for plat-apiserver's own small clusters (the reference's default-scheduler, its
// default filters in fit.ts): every pod without spec.nodeName whose schedulerName is
// `default-scheduler` is bound, through pods/binding, to the node that fits with the least of its
// allocatable CPU and memory requested (ties broken at random), with a `Scheduled` event
// ("Successfully assigned <ns>/<pod> to <node>"). When none fits, the pod's PodScheduled
// condition turns False (Unschedulable) with the reference's message, a `FailedScheduling` event
// says the same, and the pod is tried again when a node or a bound pod changes. Preemption is not
// done (the message says there were no victims).

import { hostname } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import type { UserInfo } from '../../../common/auth/user.js';
import type { Names } from '../../../common/names.js';
import type { Clock } from '../../../common/util/clock.js';
import type { Logger } from '../../../common/log/types.js';
import { recordOf } from '../../../common/util/json-shape.js';
import type { SubresourceAction } from '../../handlers/actions.js';
import { microTimeString, timeString } from '../../registry/meta.js';
import { withCondition } from '../../registry/resources/pod-binding.js';
import type { Registry } from '../../registry/registry.js';
import { metaOf, objAt, str, type Obj, type ResourceDef } from '../../registry/types.js';
import { prefixEnd, StoreReadError } from '../../storage/store.js';
import { StatusError } from '../../status.js';
import { WorkQueue } from '../queue.js';
import { fitErrorMessage, nodeFit, podRequests, type NodeFit } from './fit.js';
import { quantityValueOrZero } from '../../../common/util/values/quantity.js';

export const SCHEDULER_NAME = 'default-scheduler';
const USER: UserInfo = { username: 'system:kube-scheduler', groups: ['system:masters'] };

export interface SchedulerOptions {
  readonly registry: Registry;
  readonly podDef: ResourceDef;
  readonly nodeDef: ResourceDef;
  /** events.k8s.io/v1 Event: the reference scheduler's events. */
  readonly eventDef: ResourceDef;
  readonly binding: SubresourceAction;
  readonly names: Names;
  readonly clock: Clock;
  readonly logger: Logger;
}

function wantsScheduling(pod: Obj): boolean {
  const spec = objAt(pod, 'spec') ?? {};
  const phase = str(objAt(pod, 'status')?.['phase']);
  return (
    (str(spec['nodeName']) ?? '') === '' &&
    !(Array.isArray(spec['schedulingGates']) && spec['schedulingGates'].length > 0) &&
    (str(spec['schedulerName']) ?? SCHEDULER_NAME) === SCHEDULER_NAME &&
    metaOf(pod)['deletionTimestamp'] === undefined &&
    phase !== 'Succeeded' &&
    phase !== 'Failed'
  );
}

function isTerminal(pod: Obj): boolean {
  const phase = str(objAt(pod, 'status')?.['phase']);
  return phase === 'Succeeded' || phase === 'Failed';
}

export class Scheduler {
  private readonly o: SchedulerOptions;
  private readonly queue: WorkQueue;
  /** Pods found unschedulable, tried again on the next node or bound-pod change. */
  private readonly unschedulable = new Set<string>();
  private readonly instance = `${SCHEDULER_NAME}-${hostname()}`;

  constructor(o: SchedulerOptions) {
    this.o = o;
    this.queue = new WorkQueue({
      name: 'scheduler',
      process: (k) => this.schedule(k),
      clock: o.clock,
      logger: o.logger,
    });
  }

  async run(signal: AbortSignal): Promise<void> {
    const { registry } = this.o;
    const pods = registry.prefix(this.o.podDef, '');
    const nodes = registry.prefix(this.o.nodeDef, '');
    const unsubscribe = registry.store.subscribe((c) => {
      if (c.key.startsWith(nodes)) this.retryUnschedulable();
      if (!c.key.startsWith(pods)) return;
      const key = c.key.slice(pods.length);
      // Its own status write (PodScheduled False) does not make an unschedulable pod fit.
      const sameSpec =
        c.type === 'MODIFIED' && isDeepStrictEqual(c.prev?.['spec'], c.object['spec']);
      if (sameSpec && this.unschedulable.has(key)) return;
      if (c.type !== 'DELETED' && wantsScheduling(c.object)) this.queue.add(key);
      else if (c.type === 'DELETED' || isTerminal(c.object)) {
        this.unschedulable.delete(key);
        this.retryUnschedulable();
      }
    });
    for (const row of registry.store.rangeRaw(
      pods,
      prefixEnd(pods),
      registry.store.currentRevision(),
    ))
      this.queue.add(row.key.slice(pods.length));
    try {
      await this.queue.run(signal);
    } finally {
      unsubscribe();
    }
  }

  private retryUnschedulable(): void {
    for (const k of this.unschedulable) this.queue.add(k);
  }

  private async list(def: ResourceDef): Promise<Obj[]> {
    const { store } = this.o.registry;
    const prefix = this.o.registry.prefix(def, '');
    const out: Obj[] = [];
    for (const row of store.rangeRaw(prefix, prefixEnd(prefix), store.currentRevision())) {
      try {
        out.push(await store.decode(row.key, row.rv, row.value));
      } catch (err) {
        if (!(err instanceof StoreReadError)) throw err;
      }
    }
    return out;
  }

  private async schedule(key: string): Promise<void> {
    const [namespace = '', name = ''] = key.split('/');
    const raw = this.o.registry.store.getRaw(this.o.registry.key(this.o.podDef, namespace, name));
    if (raw === undefined) return;
    const pod = await this.o.registry.store.decode(raw.key, raw.rv, raw.value);
    if (!wantsScheduling(pod)) {
      this.unschedulable.delete(key);
      return;
    }
    const nodes = await this.list(this.o.nodeDef);
    const byNode = new Map<string, Obj[]>();
    for (const p of await this.list(this.o.podDef)) {
      const n = str(objAt(p, 'spec')?.['nodeName']) ?? '';
      if (n !== '' && !isTerminal(p)) byNode.set(n, [...(byNode.get(n) ?? []), p]);
    }
    const fits = nodes.map((node) => ({
      node,
      fit: nodeFit(pod, node, byNode.get(nodeName(node)) ?? [], this.o.names),
    }));
    const fitting = fits.filter((f) => f.fit.reasons.length === 0);
    if (fitting.length === 0) {
      this.unschedulable.add(key);
      await this.reportUnschedulable(
        pod,
        namespace,
        name,
        fits.map((f) => f.fit),
      );
      return;
    }
    this.unschedulable.delete(key);
    const best = leastRequested(
      pod,
      fitting.map((f) => f.node),
      byNode,
    );
    await this.bind(pod, namespace, name, best);
  }

  private async bind(pod: Obj, namespace: string, name: string, node: string): Promise<void> {
    try {
      await this.o.binding.create({
        namespace,
        name,
        body: {
          apiVersion: 'v1',
          kind: 'Binding',
          metadata: { name, namespace, uid: metaOf(pod)['uid'] },
          target: { kind: 'Node', name: node },
        },
        user: USER,
        dryRun: false,
        warnings: [],
      });
    } catch (err) {
      // Bound or deleted meanwhile: nothing left to do.
      if (err instanceof StatusError && (err.status === 409 || err.status === 404)) return;
      throw err;
    }
    await this.event(pod, namespace, {
      type: 'Normal',
      reason: 'Scheduled',
      action: 'Binding',
      note: `Successfully assigned ${namespace}/${name} to ${node}`,
    });
  }

  private async reportUnschedulable(
    pod: Obj,
    namespace: string,
    name: string,
    fits: readonly NodeFit[],
  ): Promise<void> {
    const message = fitErrorMessage(fits);
    const now = timeString(this.o.clock.now());
    const opts = {
      user: USER,
      dryRun: false,
      fieldManager: 'kube-scheduler',
      subresource: 'status',
    };
    try {
      await this.o.registry.update(this.o.podDef, namespace, name, opts, (current) => {
        if (current === undefined) throw new StatusError(404, 'NotFound', 'gone');
        current['status'] = withCondition(
          recordOf(current['status']),
          { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message },
          now,
        );
        return current;
      });
    } catch (err) {
      if (err instanceof StatusError && err.status === 404) return;
      throw err;
    }
    this.o.logger.info(
      { pod: `${namespace}/${name}`, message },
      'unable to schedule pod; no fit; waiting',
    );
    await this.event(pod, namespace, {
      type: 'Warning',
      reason: 'FailedScheduling',
      action: 'Scheduling',
      note: message,
    });
  }

  private async event(
    pod: Obj,
    namespace: string,
    e: { type: string; reason: string; action: string; note: string },
  ): Promise<void> {
    const m = metaOf(pod);
    const now = this.o.clock.now();
    const podName = str(m['name']) ?? '';
    const body: Obj = {
      metadata: {
        name: `${podName}.${(BigInt(now.getTime()) * 1_000_000n).toString(16)}`,
        namespace,
      },
      eventTime: microTimeString(now),
      reportingController: SCHEDULER_NAME,
      reportingInstance: this.instance,
      action: e.action,
      reason: e.reason,
      note: e.note,
      type: e.type,
      regarding: {
        kind: 'Pod',
        namespace,
        name: podName,
        uid: m['uid'],
        apiVersion: 'v1',
        resourceVersion: m['resourceVersion'],
      },
    };
    try {
      await this.o.registry.create(this.o.eventDef, namespace, body, {
        user: USER,
        dryRun: false,
        fieldManager: 'kube-scheduler',
        subresource: '',
      });
    } catch (err) {
      // An event is best effort, as the reference's recorder: said in the log, never fatal.
      this.o.logger.warn({ err, reason: e.reason }, 'could not record the scheduler event');
    }
  }
}

function nodeName(node: Obj): string {
  return str(metaOf(node)['name']) ?? '';
}

/**
 * The node where the pod leaves the most of cpu and memory free (NodeResourcesFit LeastAllocated).
 */
function leastRequested(
  pod: Obj,
  nodes: readonly Obj[],
  byNode: ReadonlyMap<string, Obj[]>,
): string {
  const want = podRequests(pod);
  const score = (node: Obj): number => {
    const alloc = recordOf(objAt(node, 'status')?.['allocatable']);
    let total = 0;
    for (const r of ['cpu', 'memory']) {
      const cap = quantityValueOrZero(alloc[r]);
      let used = want.get(r) ?? 0;
      for (const p of byNode.get(nodeName(node)) ?? []) used += podRequests(p).get(r) ?? 0;
      total += cap > 0 ? (cap - used) / cap : 0;
    }
    return total;
  };
  const scored = nodes.map((n) => ({ name: nodeName(n), s: score(n) }));
  const top = Math.max(...scored.map((x) => x.s));
  const best = scored.filter((x) => x.s === top);
  return best[Math.floor(Math.random() * best.length)]?.name ?? '';
}
