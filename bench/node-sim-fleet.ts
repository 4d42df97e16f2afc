// N simulated nodes driven from one process, each doing what a kubelet 1.32 with default settings
// does against its API server, its Lease and Node calls in protobuf as the kubelet speaks them
// (node-sim-wire.ts): register its Node and Lease, watch the pods bound to it and every Service,
// write a bound pod's status Running, renew its Lease every 10 s (renewInterval, a quarter of the
// 40 s lease), read its Node every 10 s (nodeStatusUpdateFrequency; the kubelet reads it with
// resourceVersion=0) and patch the node's status every 5 minutes (nodeStatusReportFrequency, as
// nothing changes). Each node's offset in those periods is spread evenly, so the load is steady.
// What each node's last acknowledged write was is kept for the run's consistency check.

import type { Agent } from 'undici';
import type { Session } from './apiserver-harness.js';
import { metaOf, type SimClient } from './node-sim-calls.js';
import {
  LEASE_VERSION,
  LEASES,
  leaseObject,
  microTime,
  nodeIp,
  nodeObject,
  nodeStatusPatch,
  rfc3339,
  runningPodPatch,
} from './node-sim-objects.js';
import { NodePodWatch, type PodView } from './node-sim-watch.js';
import { ServiceWatch } from './node-sim-services.js';

const LEASE_PERIOD_MS = 10_000;
const STATUS_REPORT_MS = 300_000;
const SMP = 'application/strategic-merge-patch+json';

export class SimNode {
  uid = '';
  lease: Record<string, unknown> = {};
  /** The renewTime of the last renewal the server acknowledged. */
  ackedRenew = '';
  /** The heartbeat of the last node status patch the server acknowledged. */
  ackedHeartbeat = '';
  /** resourceVersion of each pod's acknowledged Running status, by pod name. */
  readonly ackedPods = new Map<string, string>();
  watch: NodePodWatch | undefined;
  services: ServiceWatch | undefined;
  nextLeaseAt = 0;
  nextStatusAt = 0;
  busy = false;
  private readonly writing = new Set<string>();

  constructor(
    readonly name: string,
    readonly index: number,
  ) {}

  /** A pod's IP: one /24 per node, apart from the nodes' own 10.0.0.0/9. */
  podIp(): string {
    const i = this.index;
    return `10.${128 + ((i >> 8) & 127)}.${i & 255}.${(this.writing.size % 250) + 2}`;
  }

  /** Marks a pod as being written; false if it already is. */
  claim(pod: string): boolean {
    if (this.writing.has(pod)) return false;
    this.writing.add(pod);
    return true;
  }
}

export class Fleet {
  readonly nodes: SimNode[];
  private timer: NodeJS.Timeout | undefined;
  private failure: Error | undefined;
  /** Pod status writes in flight (each is awaited by settle()). */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly session: Session,
    private readonly client: SimClient,
    count: number,
  ) {
    this.nodes = Array.from(
      { length: count },
      (_, i) => new SimNode(`sim-${session.runId}-${String(i).padStart(5, '0')}`, i),
    );
  }

  /** Registers every node and its lease, `concurrency` at a time. */
  async register(concurrency: number): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < this.nodes.length; i = next++) {
        const n = this.nodes[i];
        if (n !== undefined) await this.registerOne(n);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  private async registerOne(n: SimNode): Promise<void> {
    const now = Date.now();
    const created = await this.client.call('node create', 'mutating', {
      method: 'POST',
      path: '/api/v1/nodes',
      body: nodeObject(n.name, n.index, this.session.runId, now),
    });
    n.uid = metaOf(created.json).uid;
    await this.patchStatus(n, now);
    const lease = await this.client.call('lease create', 'mutating', {
      method: 'POST',
      path: LEASES,
      body: leaseObject(n.name, n.uid, this.session.runId, now),
      wire: 'protobuf',
    });
    n.lease = lease.json;
    n.ackedRenew = microTime(now);
  }

  /** Opens every node's pod watch and services watch (two connections each on `agent`). */
  async watch(agent: Agent, concurrency: number): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < this.nodes.length; i = next++) {
        const n = this.nodes[i];
        if (n === undefined) continue;
        n.watch = new NodePodWatch(this.session, agent, n.name, (p) => this.onPod(n, p));
        await n.watch.start();
        n.services = new ServiceWatch(this.session, agent);
        await n.services.start();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }

  /** Starts the periodic lease renewals, node reads and status reports. */
  startHeartbeats(): void {
    const now = Date.now();
    const count = this.nodes.length;
    for (const n of this.nodes) {
      n.nextLeaseAt = now + (LEASE_PERIOD_MS * n.index) / count;
      n.nextStatusAt = now + (STATUS_REPORT_MS * n.index) / count;
    }
    this.timer = setInterval(() => this.tick(), 50);
  }

  /** Stops the heartbeats and waits for the ones under way and every pod status write. */
  async quiesce(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    while (this.nodes.some((n) => n.busy)) await new Promise((r) => setTimeout(r, 20));
    await this.settle();
  }

  /** Closes every watch (after quiesce()). */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    for (const n of this.nodes) {
      n.watch?.stop();
      n.services?.stop();
    }
  }

  /** Pods acknowledged Running, over all nodes. */
  running(): number {
    return this.nodes.reduce((sum, n) => sum + n.ackedPods.size, 0);
  }

  /** Throws the first failure of a background call (a heartbeat or a pod status write). */
  check(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Waits for every pod status write started so far. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private tick(): void {
    const now = Date.now();
    for (const n of this.nodes) {
      if (n.busy || now < n.nextLeaseAt) continue;
      n.busy = true;
      this.heartbeat(n, now)
        .catch((err: unknown) => {
          this.failure ??= err instanceof Error ? err : new Error(String(err));
        })
        .finally(() => {
          n.busy = false;
          n.nextLeaseAt = Date.now() + LEASE_PERIOD_MS;
        });
    }
  }

  private async heartbeat(n: SimNode, now: number): Promise<void> {
    await this.renew(n, now);
    await this.client.call('node get', 'read', {
      method: 'GET',
      path: `/api/v1/nodes/${n.name}?resourceVersion=0`,
      wire: 'protobuf',
    });
    if (now >= n.nextStatusAt) {
      n.nextStatusAt = now + STATUS_REPORT_MS;
      await this.patchStatus(n, now);
    }
  }

  private async renew(n: SimNode, now: number): Promise<void> {
    const spec = { ...((n.lease['spec'] ?? {}) as object), renewTime: microTime(now) };
    const put = await this.client.call(
      'lease renew',
      'mutating',
      {
        method: 'PUT',
        path: `${LEASES}/${n.name}`,
        body: { ...n.lease, apiVersion: LEASE_VERSION, kind: 'Lease', spec },
        wire: 'protobuf',
      },
      [200, 409],
    );
    if (put.status === 409) {
      // Another writer changed it: the kubelet reads the lease again and renews that.
      const got = await this.client.call('lease get', 'read', {
        method: 'GET',
        path: `${LEASES}/${n.name}`,
        wire: 'protobuf',
      });
      n.lease = got.json;
      return this.renew(n, now);
    }
    n.lease = put.json;
    n.ackedRenew = spec.renewTime;
  }

  private async patchStatus(n: SimNode, now: number): Promise<void> {
    await this.client.call('node status', 'mutating', {
      method: 'PATCH',
      path: `/api/v1/nodes/${n.name}/status`,
      body: nodeStatusPatch(now),
      contentType: SMP,
    });
    n.ackedHeartbeat = rfc3339(now);
  }

  private onPod(n: SimNode, p: PodView): void {
    if (p.phase === 'Running' || !n.claim(p.name)) return;
    const write = this.writeRunning(n, p)
      .catch((err: unknown) => {
        this.failure ??= err instanceof Error ? err : new Error(String(err));
      })
      .finally(() => this.inFlight.delete(write));
    this.inFlight.add(write);
  }

  private async writeRunning(n: SimNode, p: PodView): Promise<void> {
    const r = await this.client.call('pod status', 'mutating', {
      method: 'PATCH',
      path: `/api/v1/namespaces/${p.namespace}/pods/${p.name}/status`,
      body: runningPodPatch(p.uid, n.podIp(), nodeIp(n.index), Date.now()),
      contentType: SMP,
    });
    n.ackedPods.set(p.name, metaOf(r.json).rv);
  }
}
