// The pods the agent runs, as the eviction and node shutdown managers both see them: the admitted
// pods that have not finished (the reference's GetActivePods), and killing one as the reference's
// killPodFunc with a status function. The status the caller makes is written first, so the
// workers do not restart what is being stopped, then the pod's running containers are stopped
// within the grace period, each with the reference's Killing event.
import type { ContainerRuntime } from '../runtime/types.js';
import type { Pod, PodStatus } from '../pod/types.js';
import { killingEvent } from './container-kill.js';
import type { PodEvent } from './status-manager.js';

export interface ActivePodsSource {
  desiredPods(): Pod[];
  status(uid: string): PodStatus | undefined;
}

export interface PodStatusWriter {
  set(pod: Pod, status: PodStatus): void;
  /** The Killing event of each container stopped. */
  recordEvent(e: PodEvent): void;
}

export interface ActivePodsOptions {
  pods: ActivePodsSource;
  statuses: PodStatusWriter;
  runtime: Pick<ContainerRuntime, 'listContainers' | 'stopContainer'>;
}

export class ActivePods {
  constructor(private readonly o: ActivePodsOptions) {}

  /** The desired pods that are neither Failed nor Succeeded. */
  list(): Pod[] {
    return this.o.pods.desiredPods().filter((p) => {
      const phase = this.o.pods.status(p.metadata.uid)?.phase;
      return phase !== 'Failed' && phase !== 'Succeeded';
    });
  }

  /**
   * Writes `status(current)` (a pod without a status yet counts as Pending), then stops the pod's
   * running containers with `gracePeriodSeconds`. A pod no longer desired is left alone.
   */
  async kill(
    uid: string,
    gracePeriodSeconds: number,
    status: (current: PodStatus) => PodStatus,
  ): Promise<void> {
    const pod = this.o.pods.desiredPods().find((p) => p.metadata.uid === uid);
    if (pod === undefined) return;
    const current = this.o.pods.status(uid) ?? {
      phase: 'Pending',
      conditions: [],
      containerStatuses: [],
    };
    this.o.statuses.set(pod, status(current));
    const running = (await this.o.runtime.listContainers({ podUid: uid })).filter(
      (c) => c.kind !== 'sandbox' && c.state === 'running',
    );
    for (const c of running)
      if (c.kind !== 'sandbox') this.o.statuses.recordEvent(killingEvent(pod, c.name, c.kind));
    await Promise.all(running.map((c) => this.o.runtime.stopContainer(c.id, gracePeriodSeconds)));
  }
}
