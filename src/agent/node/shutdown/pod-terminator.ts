// The shutdown manager's view of the pods: the admitted, not yet finished pods with their
// priority and grace period, and termination as the reference's killPodFunc with a status
// function: the pod is marked Failed (unless it already Succeeded) with reason Terminated, the
// node shutdown message and a DisruptionTarget condition (reason TerminationByKubelet, the
// profile's agent word in it) first, so the workers do not restart what is being stopped, then
// its containers are stopped within the grace period.
import type { ContainerRuntime } from '../../runtime/types.js';
import type { Pod, PodStatus } from '../../pod/types.js';
import { NODE_SHUTDOWN_MESSAGE, NODE_SHUTDOWN_REASON, type ShutdownPod, type ShutdownPods } from './manager.js';

export interface PodsForShutdown {
  desiredPods(): Pod[];
  status(uid: string): PodStatus | undefined;
}

export interface ShutdownStatusWriter {
  set(pod: Pod, status: PodStatus): void;
}

export class RuntimeShutdownPods implements ShutdownPods {
  constructor(
    private readonly o: {
      pods: PodsForShutdown;
      statuses: ShutdownStatusWriter;
      runtime: Pick<ContainerRuntime, 'listContainers' | 'stopContainer'>;
      /** The DisruptionTarget reason: TerminationByKubelet (TerminationByPlatlet under the platform profile). */
      disruptionReason: string;
      nowIso: () => string;
    },
  ) {}

  activePods(): ShutdownPod[] {
    return this.o.pods
      .desiredPods()
      .filter((p) => {
        const phase = this.o.pods.status(p.metadata.uid)?.phase;
        return phase !== 'Failed' && phase !== 'Succeeded';
      })
      .map((p) => ({
        uid: p.metadata.uid,
        namespace: p.metadata.namespace,
        name: p.metadata.name,
        priority: p.spec.priority ?? 0,
        ...(p.spec.terminationGracePeriodSeconds !== undefined ? { terminationGracePeriodSeconds: p.spec.terminationGracePeriodSeconds } : {}),
      }));
  }

  async terminate(pod: ShutdownPod, gracePeriodSeconds: number): Promise<void> {
    const spec = this.o.pods.desiredPods().find((p) => p.metadata.uid === pod.uid);
    if (spec === undefined) return;
    const prev = this.o.pods.status(pod.uid) ?? { phase: 'Pending', conditions: [], containerStatuses: [] };
    const disruption = { type: 'DisruptionTarget' as const, status: 'True' as const, lastTransitionTime: this.o.nowIso(), reason: this.o.disruptionReason, message: NODE_SHUTDOWN_MESSAGE };
    const conditions = [...prev.conditions.filter((c) => c.type !== 'DisruptionTarget'), disruption];
    this.o.statuses.set(spec, { ...prev, phase: prev.phase === 'Succeeded' ? 'Succeeded' : 'Failed', reason: NODE_SHUTDOWN_REASON, message: NODE_SHUTDOWN_MESSAGE, conditions });
    const running = (await this.o.runtime.listContainers({ podUid: pod.uid })).filter((c) => c.kind !== 'sandbox' && c.state === 'running');
    await Promise.all(running.map((c) => this.o.runtime.stopContainer(c.id, gracePeriodSeconds)));
  }
}
