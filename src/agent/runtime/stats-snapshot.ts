// The stats of the running containers (and of their pods where the runtime measures them) in one
// form for every reader (/stats/summary, eviction): a runtime that lists them (CRI
// ListContainerStats and ListPodSandboxStats) is asked once, others container by container. A
// pod's use is the runtime's own measure when it has one, else its containers' sum.
import type { ContainerRuntime, ContainerStats, PodStats, RuntimeContainer } from './types.js';

export interface StatsSnapshot {
  container(id: string): ContainerStats | undefined;
  /** The runtime's measure of the whole pod, when it has one. */
  pod(uid: string): PodStats | undefined;
}

/** The stats of `containers` (the running, non-sandbox ones are asked for); failures give none. */
export async function statsSnapshot(
  runtime: ContainerRuntime,
  containers: readonly RuntimeContainer[],
): Promise<StatsSnapshot> {
  const listed = await runtime.listStats?.().catch(() => undefined);
  if (listed !== undefined)
    return { container: (id) => listed.containers.get(id), pod: (uid) => listed.pods.get(uid) };
  const byId = new Map<string, ContainerStats>();
  for (const c of containers) {
    if (c.kind === 'sandbox' || c.state !== 'running') continue;
    const s = await runtime.stats?.(c.id).catch(() => undefined);
    if (s !== undefined) byId.set(c.id, s);
  }
  return { container: (id) => byId.get(id), pod: () => undefined };
}

/** A pod's memory working set: the runtime's measure of the pod, else its containers' sum. */
export function podWorkingSet(
  snapshot: StatsSnapshot,
  uid: string,
  containers: readonly RuntimeContainer[],
): number {
  const own = snapshot.pod(uid)?.memoryWorkingSetBytes;
  if (own !== undefined) return own;
  return containers
    .filter((c) => c.podUid === uid && c.kind !== 'sandbox' && c.state === 'running')
    .reduce((sum, c) => sum + (snapshot.container(c.id)?.memoryWorkingSetBytes ?? 0), 0);
}
