// Holds the latest computed status of every pod; the read side for the agent's servers, the
// node status and mirror pods.
import type { Logger } from '../../common/log/types.js';
import type { Pod, PodStatus } from '../pod/types.js';
import { illegalTransition } from './status-transition.js';

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

/**
 * An event about a pod the workers raise (a failed lifecycle hook); the node's reporting sends it.
 */
export interface PodEvent {
  pod: Pod;
  /** `spec.containers{name}` for a container's event. */
  fieldPath?: string;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export class PodStatusManager implements StatusProvider {
  private readonly entries = new Map<string, PodWithStatus>();
  private readonly listeners: StatusListener[] = [];
  private readonly removeListeners: ((pod: Pod) => void)[] = [];
  private readonly eventListeners: ((e: PodEvent) => void)[] = [];
  /** The refusals already logged, by pod UID: each is said once. */
  private readonly refusedSaid = new Map<string, string>();

  /** `logger`: where a refused status change is said (once per pod and reason). */
  constructor(private readonly logger?: Logger) {}

  /**
   * Holds `status` as the pod's, unless it takes a container that may not restart out of its
   * terminated state (the update is then dropped, as the reference's status manager drops it).
   */
  set(pod: Pod, status: PodStatus): void {
    const prev = this.entries.get(pod.metadata.uid);
    const refused = illegalTransition(pod, prev?.status ?? pod.status, status);
    if (refused !== undefined) {
      this.refuse(pod, refused);
      return;
    }
    this.entries.set(pod.metadata.uid, { pod, status });
    if (prev === undefined || JSON.stringify(prev.status) !== JSON.stringify(status)) {
      for (const l of this.listeners) l(pod, status);
    }
  }

  private refuse(pod: Pod, reason: string): void {
    const uid = pod.metadata.uid;
    if (this.refusedSaid.get(uid) === reason) return;
    this.refusedSaid.set(uid, reason);
    this.logger?.error(
      { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, err: reason },
      'Status update on pod aborted',
    );
  }

  get(uid: string): PodWithStatus | undefined {
    return this.entries.get(uid);
  }

  status(uid: string): PodStatus | undefined {
    return this.entries.get(uid)?.status;
  }

  /** Drops the pod's status; `latest` is the newest pod object (e.g. with deletionTimestamp). */
  delete(uid: string, latest?: Pod): void {
    const prev = this.entries.get(uid);
    this.entries.delete(uid);
    this.refusedSaid.delete(uid);
    if (prev) for (const l of this.removeListeners) l(latest ?? prev.pod);
  }

  /** Called with the pod when its status is dropped (the pod is gone from this node). */
  onRemove(listener: (pod: Pod) => void): void {
    this.removeListeners.push(listener);
  }

  pods(): Pod[] {
    return [...this.entries.values()].map(({ pod, status }) => ({
      ...pod,
      status: status as unknown as Record<string, unknown>,
    }));
  }

  entriesList(): PodWithStatus[] {
    return [...this.entries.values()];
  }

  onChange(listener: StatusListener): void {
    this.listeners.push(listener);
  }

  /**
   * Passes a worker's event about a pod to whoever reports events (none: dropped, as before the
   * recorder starts).
   */
  recordEvent(e: PodEvent): void {
    for (const l of this.eventListeners) l(e);
  }

  onPodEvent(listener: (e: PodEvent) => void): void {
    this.eventListeners.push(listener);
  }
}
