// What runs, from ListPodSandbox and ListContainers (this agent's labels, this node's), with each
// container's ContainerStatus (times, exit code, reason) and each ready sandbox's IP from
// PodSandboxStatus (the CNI's address, for status.podIPs). Statuses of exited containers and IPs of
// ready sandboxes do not change: they are kept until the container or sandbox goes.
import type { Logger } from '../../../common/log/types.js';
import { LABELS, type RuntimeContainer } from '../types.js';
import type { CriClient } from './client.js';
import { ListBatch } from './list-batch.js';
import { containerOf, isOurs, sandboxOf } from './status.js';
import {
  ContainerState,
  PodSandboxState,
  type Container,
  type ContainerStatus,
  type PodSandbox,
} from './types.generated.js';

/** The most sandboxes or containers taken from one list answer (the rest is said and dropped). */
export const MAX_LISTED = 20_000;

export interface CriStateOptions {
  client: CriClient;
  nodeName?: string;
  logger: Logger;
}

export class CriState {
  private readonly exited = new Map<string, ContainerStatus>();
  private readonly running = new Map<string, ContainerStatus>();
  private readonly ips = new Map<string, string[]>();
  private warnedTooMany = false;
  private readonly batch = new ListBatch((podUid) => this.fetch(podUid));

  constructor(private readonly o: CriStateOptions) {}

  /** The log file of a container seen in a list (its ContainerStatus), for rotation. */
  logPathOf(id: string): string | undefined {
    const p = (this.exited.get(id) ?? this.running.get(id))?.log_path;
    return p?.startsWith('/') === true ? p : undefined;
  }

  forget(id: string): void {
    this.exited.delete(id);
    this.running.delete(id);
    this.ips.delete(id);
  }

  private selector(podUid?: string): Record<string, string> {
    return {
      [LABELS.managed]: 'true',
      ...(this.o.nodeName !== undefined ? { [LABELS.node]: this.o.nodeName } : {}),
      ...(podUid !== undefined ? { [LABELS.podUid]: podUid } : {}),
    };
  }

  private bounded<T>(what: string, list: T[] | undefined): T[] {
    const all = list ?? [];
    if (all.length <= MAX_LISTED) return all;
    if (!this.warnedTooMany) {
      this.warnedTooMany = true;
      this.o.logger.warn(
        { what, count: all.length, kept: MAX_LISTED },
        `the runtime listed ${all.length} ${what}, over ${MAX_LISTED}: the rest is not ` +
          `looked at (said once)`,
      );
    }
    return all.slice(0, MAX_LISTED);
  }

  /** What runs (one pod's or all), from a list shared with the callers asking at the same time. */
  list(podUid?: string): Promise<RuntimeContainer[]> {
    return this.batch.list(podUid);
  }

  private async fetch(podUid?: string): Promise<RuntimeContainer[]> {
    const label_selector = this.selector(podUid);
    const [sb, ct] = await Promise.all([
      this.o.client.call('RuntimeService/ListPodSandbox', { filter: { label_selector } }),
      this.o.client.call('RuntimeService/ListContainers', { filter: { label_selector } }),
    ]);
    const sandboxes = this.bounded('sandboxes', sb.items).filter((s) =>
      isOurs(s.labels, this.o.nodeName),
    );
    const containers = this.bounded('containers', ct.containers).filter((c) =>
      isOurs(c.labels, this.o.nodeName),
    );
    const out: RuntimeContainer[] = [];
    for (const s of sandboxes) out.push(sandboxOf(s, await this.ipOf(s)));
    for (const c of containers) out.push(containerOf(c, await this.statusOf(c)));
    return out.filter((c) => c.id !== '');
  }

  private async ipOf(s: PodSandbox): Promise<string | undefined> {
    const id = s.id ?? '';
    // proto3 leaves the zero value (SANDBOX_READY) off the wire
    if ((s.state ?? PodSandboxState.SANDBOX_READY) !== PodSandboxState.SANDBOX_READY) {
      this.ips.delete(id);
      return undefined;
    }
    return (await this.sandboxIPs(id).catch(() => [] as string[]))[0];
  }

  /**
   * A sandbox's addresses from PodSandboxStatus (the CNI's primary first, then the others; none
   * for host network), kept while it is ready: they do not change.
   */
  async sandboxIPs(id: string): Promise<string[]> {
    const known = this.ips.get(id);
    if (known !== undefined) return known;
    const r = await this.o.client.call('RuntimeService/PodSandboxStatus', { pod_sandbox_id: id });
    const net = r.status?.network;
    // an address is at most an IPv6 literal's length
    const ips = [net?.ip ?? '', ...(net?.additional_ips ?? []).map((a) => a.ip ?? '')].filter(
      (ip) => ip !== '' && ip.length <= 45,
    );
    if (ips.length > 0) this.ips.set(id, ips);
    return ips;
  }

  private async statusOf(c: Container): Promise<ContainerStatus | undefined> {
    const id = c.id ?? '';
    const done = this.exited.get(id);
    if (done !== undefined) return done;
    const known = this.running.get(id);
    if (known !== undefined && c.state === ContainerState.CONTAINER_RUNNING) return known;
    const r = await this.o.client
      .call('RuntimeService/ContainerStatus', { container_id: id })
      .catch(() => undefined);
    const st = r?.status;
    if (st === undefined) return undefined;
    this.running.delete(id);
    if (st.state === ContainerState.CONTAINER_EXITED) this.exited.set(id, st);
    else if (st.state === ContainerState.CONTAINER_RUNNING) this.running.set(id, st);
    return st;
  }
}
