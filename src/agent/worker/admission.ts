// Admission of pods to this node: a pod over the node's pod capacity is rejected, not run.
import { cpus } from 'node:os';

export interface PodCapacityOptions {
  maxPods: number;
  /** 0 disables; otherwise the capacity is at most podsPerCore × CPUs. */
  podsPerCore: number;
  cpuCount?: number;
}

export function podCapacity(opts: PodCapacityOptions): number {
  const n = opts.cpuCount ?? cpus().length;
  if (opts.podsPerCore > 0) return Math.min(opts.maxPods, opts.podsPerCore * n);
  return opts.maxPods;
}

export interface AdmitResult {
  admit: boolean;
  reason?: string;
  message?: string;
}

export function admitPod(activePods: number, capacity: number): AdmitResult {
  if (activePods + 1 > capacity) {
    return {
      admit: false,
      reason: 'OutOfpods',
      message:
        `Node didn't have enough resource: pods, requested: 1, used: ${activePods}, ` +
        `capacity: ${capacity}`,
    };
  }
  return { admit: true };
}
