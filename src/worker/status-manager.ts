// Holds the latest computed status of every pod; the read side for the agent's servers, the
// node status and mirror pods.
import type { Pod, PodStatus } from '../pod/types.js';

export interface PodWithStatus {
  pod: Pod;
  status: PodStatus;
}

/** What the servers and node status read: the pods this agent runs and their status. */
export interface StatusProvider {
  /** Every pod the agent knows, with `status` filled in. */
  pods(): Pod[];
  status(uid: string): PodStatus | undefined;
}

export type StatusListener = (pod: Pod, status: PodStatus) => void;

export class PodStatusManager implements StatusProvider {
  private readonly entries = new Map<string, PodWithStatus>();
  private readonly listeners: StatusListener[] = [];

  set(pod: Pod, status: PodStatus): void {
    const prev = this.entries.get(pod.metadata.uid);
    this.entries.set(pod.metadata.uid, { pod, status });
    if (prev === undefined || JSON.stringify(prev.status) !== JSON.stringify(status)) {
      for (const l of this.listeners) l(pod, status);
    }
  }

  get(uid: string): PodWithStatus | undefined {
    return this.entries.get(uid);
  }

  status(uid: string): PodStatus | undefined {
    return this.entries.get(uid)?.status;
  }

  delete(uid: string): void {
    this.entries.delete(uid);
  }

  pods(): Pod[] {
    return [...this.entries.values()].map(({ pod, status }) => ({ ...pod, status: status as unknown as Record<string, unknown> }));
  }

  entriesList(): PodWithStatus[] {
    return [...this.entries.values()];
  }

  onChange(listener: StatusListener): void {
    this.listeners.push(listener);
  }
}
