// Every container's stats in one ListContainerStats, and each pod's own measure (CPU, memory,
// network) from ListPodSandboxStats. A runtime that does not implement ListPodSandboxStats
// (containerd 1.6 answers Unimplemented) is said so once in the log; the pods are then left out of
// the snapshot and their CPU and memory are their containers' sums, without network figures.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../../../common/log/types.js';
import { userMessage } from '../../../common/util/errors.js';
import type { ContainerStats, PodStats, RuntimeStatsSnapshot } from '../types.js';
import { CriCallError, type CriClient } from './client.js';
import { podStatsOf, statsOf } from './stats.js';

/** The most entries taken from one answer (more containers than any node runs). */
const MAX_ENTRIES = 10_000;

export class CriStatsLister {
  private podStatsUnimplemented = false;
  private saidPodStatsFailed = false;

  constructor(private readonly o: { client: CriClient; logger: Logger }) {}

  async list(): Promise<RuntimeStatsSnapshot> {
    const [containers, pods] = await Promise.all([this.containers(), this.pods()]);
    return { containers, pods };
  }

  private async containers(): Promise<Map<string, ContainerStats>> {
    const r = await this.o.client.call('RuntimeService/ListContainerStats', { filter: {} });
    const out = new Map<string, ContainerStats>();
    for (const s of (r.stats ?? []).slice(0, MAX_ENTRIES)) {
      const id = s.attributes?.id;
      if (id !== undefined && id !== '') out.set(id, statsOf(s));
    }
    return out;
  }

  private async pods(): Promise<Map<string, PodStats>> {
    const out = new Map<string, PodStats>();
    if (this.podStatsUnimplemented) return out;
    let r;
    try {
      r = await this.o.client.call('RuntimeService/ListPodSandboxStats', { filter: {} });
    } catch (err) {
      this.failed(err);
      return out;
    }
    for (const s of (r.stats ?? []).slice(0, MAX_ENTRIES)) {
      const uid = s.attributes?.metadata?.uid;
      const stats = podStatsOf(s);
      if (uid !== undefined && uid !== '' && stats !== undefined) out.set(uid, stats);
    }
    return out;
  }

  private failed(err: unknown): void {
    if (err instanceof CriCallError && err.grpcCode === grpc.status.UNIMPLEMENTED) {
      this.podStatsUnimplemented = true;
      this.o.logger.info(
        { err: userMessage(err) },
        "the runtime does not implement ListPodSandboxStats: a pod's CPU and memory are " +
          "its containers' sums, and pods have no network stats",
      );
      return;
    }
    if (this.saidPodStatsFailed) return;
    this.saidPodStatsFailed = true;
    this.o.logger.warn(
      { err: userMessage(err) },
      "ListPodSandboxStats failed: a pod's CPU and memory are its containers' sums " +
        'until it answers (said once)',
    );
  }
}
