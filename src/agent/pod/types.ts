// The core/v1 Pod as the agent reads it: the schemas are the reference's own definitions
// (pod-schema.generated.ts, every field of ObjectMeta and PodSpec with its JSON type, int32/int64,
// enums and required fields). The status is the API server's report, kept as sent: the agent
// writes a pod's status, it does not act on the one it reads.
import { z } from 'zod';
import type {
  DownwardAPIVolumeFileSchema,
  EphemeralContainerSchema,
  KeyToPathSchema,
  LifecycleHandlerSchema,
  VolumeMountSchema,
  VolumeProjectionSchema,
} from './pod-schema.generated.js';
import {
  ContainerSchema,
  ObjectMetaSchema,
  PodSpecSchema,
  ProbeSchema,
  VolumeSchema,
} from './pod-schema.generated.js';
import { str, struct } from './schema-kit.js';

export { ContainerSchema, ObjectMetaSchema, PodSpecSchema, ProbeSchema, VolumeSchema };

export const PodSchema = struct({
  apiVersion: str.optional(),
  kind: str.optional(),
  metadata: ObjectMetaSchema,
  spec: PodSpecSchema,
  status: z.record(z.string(), z.unknown()).optional(),
});

export type Probe = z.infer<typeof ProbeSchema>;
export type Container = z.infer<typeof ContainerSchema>;
export type EphemeralContainer = z.infer<typeof EphemeralContainerSchema>;
export type Volume = z.infer<typeof VolumeSchema>;
export type LifecycleHandler = z.infer<typeof LifecycleHandlerSchema>;
export type VolumeMount = z.infer<typeof VolumeMountSchema>;
export type KeyToPath = z.infer<typeof KeyToPathSchema>;
export type DownwardAPIVolumeFile = z.infer<typeof DownwardAPIVolumeFileSchema>;
export type VolumeProjection = z.infer<typeof VolumeProjectionSchema>;
export type PodSpec = z.infer<typeof PodSpecSchema>;
export type ObjectMeta = z.infer<typeof ObjectMetaSchema>;
export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';

/** A pod after decoding and defaulting: name, namespace and uid are always set. */
export interface Pod {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata: ObjectMeta & { name: string; namespace: string; uid: string };
  spec: PodSpec;
  status?: Record<string, unknown> | undefined;
  [extra: string]: unknown;
}

// ---- status ----
export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

export interface ContainerStateWaiting {
  reason: string;
  message?: string;
}
export interface ContainerStateRunning {
  startedAt: string;
}
export interface ContainerStateTerminated {
  exitCode: number;
  signal?: number;
  reason: string;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  containerID?: string;
}
export interface ContainerState {
  waiting?: ContainerStateWaiting;
  running?: ContainerStateRunning;
  terminated?: ContainerStateTerminated;
}

/** A container's mount as its status reports it (the reference's VolumeMountStatus). */
export interface VolumeMountStatus {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  /** Set for a read-only mount: whether its submounts are read-only too. */
  recursiveReadOnly?: 'Disabled' | 'Enabled';
}

export interface ContainerStatus {
  name: string;
  state: ContainerState;
  lastState: ContainerState;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  volumeMounts?: VolumeMountStatus[];
}

export interface PodCondition {
  /**
   * The agent's own (PodScheduled, Initialized, ContainersReady, Ready, PodReadyToStartContainers)
   * or another party's (DisruptionTarget, a readiness gate).
   */
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface PodStatus {
  phase: PodPhase;
  conditions: PodCondition[];
  message?: string;
  reason?: string;
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  qosClass?: 'Guaranteed' | 'Burstable' | 'BestEffort';
  initContainerStatuses?: ContainerStatus[];
  containerStatuses: ContainerStatus[];
  ephemeralContainerStatuses?: ContainerStatus[];
}

export function podFullName(pod: Pick<Pod, 'metadata'>): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}`;
}

/** The reference's default terminationMessagePath. */
export const DEFAULT_TERMINATION_MESSAGE_PATH = '/dev/termination-log';

/** Where the container's termination message file is mounted ('' when it has none). */
export function terminationMessagePathOf(c: Container): string {
  return c.terminationMessagePath ?? DEFAULT_TERMINATION_MESSAGE_PATH;
}

export function restartPolicyOf(pod: Pod): RestartPolicy {
  const p = pod.spec.restartPolicy;
  return p === undefined || p === '' ? 'Always' : p;
}
