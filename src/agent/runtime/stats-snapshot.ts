// The stats of the running containers (and of their pods where the runtime measures them) in one
// form for every reader (/stats/summary, eviction): a runtime that lists them (CRI
// ListContainerStats and ListPodSandboxStats) is asked once, others container by container. A
// pod's use is the runtime's own measure when it has one, else its containers' sum.
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import type { ContainerRuntime, ContainerStats, PodStats, RuntimeContainer } from './types.js';

export interface StatsSnapshot {
  container(id: string): ContainerStats | undefined;
  /** The runtime's measure of the whole pod, when it has one. */
  pod(uid: string): PodStats | undefined;
}

/**
 * Says that the runtime's stats could not be read, once, and again only after a read worked: what
 * reads them (`reader`) then goes on without the missing figures.
 */
export class StatsFailureNote {
  private said = false;

  constructor(
    private readonly logger: Logger,
    private readonly reader: string,
  ) {}

  failed(err: unknown): void {
    if (this.said) return;
    this.said = true;
    this.logger.warn(
      { err: userMessage(err), reader: this.reader },
      `container stats could not be read from the runtime: ${this.reader} goes on without ` +
        'them until a read works (said once until then)',
    );
  }

  worked(): void {
    if (this.said) this.logger.info({ reader: this.reader }, 'container stats can be read again');
    this.said = false;
  }
}

/**
 * The stats of `containers` (the running, non-sandbox ones are asked for); a failed read gives
 * none and is said through `note`.
 */
export async function statsSnapshot(
  runtime: ContainerRuntime,
  containers: readonly RuntimeContainer[],
  note?: StatsFailureNote,
): Promise<StatsSnapshot> {
  let failure: unknown;
  const fail = (err: unknown): undefined => {
    failure ??= err;
    return undefined;
  };
  const listed = await runtime.listStats?.().catch(fail);
  const snapshot =
    listed !== undefined
      ? {
          container: (id: string) => listed.containers.get(id),
          pod: (uid: string) => listed.pods.get(uid),
        }
      : await oneByOne(runtime, containers, fail);
  if (failure !== undefined) note?.failed(failure);
  else note?.worked();
  return snapshot;
}

/** A runtime that lists no stats: each running container asked in turn. */
async function oneByOne(
  runtime: ContainerRuntime,
  containers: readonly RuntimeContainer[],
  fail: (err: unknown) => undefined,
): Promise<StatsSnapshot> {
  const byId = new Map<string, ContainerStats>();
  for (const c of containers) {
    if (c.kind === 'sandbox' || c.state !== 'running') continue;
    const s = await runtime.stats?.(c.id).catch(fail);
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
