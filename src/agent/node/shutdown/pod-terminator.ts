// The shutdown manager's view of the pods: the admitted, not yet finished pods with their
// priority and grace period, and termination as the reference's killPodFunc with a status
// function: the pod is marked Failed (unless it already Succeeded) with reason Terminated, the
// node shutdown message and a DisruptionTarget condition (reason TerminationByKubelet, the
// profile's agent word in it) first, so the workers do not restart what is being stopped, then
// its containers are stopped within the grace period (worker/active-pods.ts, which the eviction
// manager uses too).
import type { ContainerRuntime } from '../../runtime/types.js';
import {
  ActivePods,
  type ActivePodsSource,
  type PodStatusWriter,
} from '../../worker/active-pods.js';
import {
  NODE_SHUTDOWN_MESSAGE,
  NODE_SHUTDOWN_REASON,
  type ShutdownPod,
  type ShutdownPods,
} from './manager.js';

export class RuntimeShutdownPods implements ShutdownPods {
  private readonly active: ActivePods;

  constructor(
    private readonly o: {
      pods: ActivePodsSource;
      statuses: PodStatusWriter;
      runtime: Pick<ContainerRuntime, 'listContainers' | 'stopContainer'>;
      /**
       * The DisruptionTarget reason: TerminationByKubelet (TerminationByPlatlet under the platform
       * profile).
       */
      disruptionReason: string;
      nowIso: () => string;
    },
  ) {
    this.active = new ActivePods(o);
  }

  activePods(): ShutdownPod[] {
    return this.active.list().map((p) => ({
      uid: p.metadata.uid,
      namespace: p.metadata.namespace,
      name: p.metadata.name,
      priority: p.spec.priority ?? 0,
      ...(p.spec.terminationGracePeriodSeconds !== undefined
        ? { terminationGracePeriodSeconds: p.spec.terminationGracePeriodSeconds }
        : {}),
    }));
  }

  async terminate(pod: ShutdownPod, gracePeriodSeconds: number): Promise<void> {
    await this.active.kill(pod.uid, gracePeriodSeconds, (prev) => {
      const disruption = {
        type: 'DisruptionTarget' as const,
        status: 'True' as const,
        lastTransitionTime: this.o.nowIso(),
        reason: this.o.disruptionReason,
        message: NODE_SHUTDOWN_MESSAGE,
      };
      const conditions = [
        ...prev.conditions.filter((c) => c.type !== 'DisruptionTarget'),
        disruption,
      ];
      return {
        ...prev,
        phase: prev.phase === 'Succeeded' ? 'Succeeded' : 'Failed',
        reason: NODE_SHUTDOWN_REASON,
        message: NODE_SHUTDOWN_MESSAGE,
        conditions,
      };
    });
  }
}
