// Pod lifecycle events derived from pod status transitions, for parts that report status rather
// than call the recorder themselves: Created and Started (a new container ID is running),
// BackOff (CrashLoopBackOff), Failed (create, config or start errors). The image events
// (Pulling, Pulled, Failed, BackOff, ErrImageNeverPull and the start's "Error: <reason>") come
// from the container start that ensured the image (worker/image-pull.ts), once per attempt;
// Killing from the kill itself, as it begins (worker/pod-sync.ts); parts may also call
// `recorder.event` directly.

import type { EventType, ObjectReference } from './types.js';

export interface ContainerStatusLike {
  name: string;
  image?: string;
  imageID?: string;
  containerID?: string;
  state?: {
    running?: unknown;
    waiting?: { reason?: string; message?: string };
    terminated?: { reason?: string; message?: string; startedAt?: string };
  };
  lastState?: { terminated?: { reason?: string; startedAt?: string; containerID?: string } };
}

/**
 * The container instance of this status ran: it runs, or it ended after starting (a short-lived
 * container is reported Started even when no status caught it running, as the reference reports
 * Started when the start succeeds).
 */
function instanceStarted(c: ContainerStatusLike): boolean {
  if (c.state?.running !== undefined) return true;
  if (startFailed(c)) return false;
  if (c.state?.terminated?.startedAt !== undefined) return true;
  const last = c.lastState?.terminated;
  return (
    last?.containerID === c.containerID &&
    last?.startedAt !== undefined &&
    !neverStarted(last.reason)
  );
}

export interface PodLike {
  metadata: { name: string; namespace?: string; uid: string };
}

export interface PodStatusLike {
  phase?: string;
  reason?: string;
  message?: string;
  containerStatuses?: readonly ContainerStatusLike[];
  initContainerStatuses?: readonly ContainerStatusLike[];
  ephemeralContainerStatuses?: readonly ContainerStatusLike[];
}

export interface DerivedEvent {
  type: EventType;
  reason: string;
  message: string;
  fieldPath: string;
}

const FAILED_WAITING = new Set([
  'CreateContainerError',
  'CreateContainerConfigError',
  'RunContainerError',
]);

/** The reference's `Error: <err>`: the message the container's status shows, else the reason. */
function failedMessage(reason: string, c: ContainerStatusLike): string {
  const message = c.state?.waiting?.message;
  if (message === undefined || message === '') return `Error: ${reason}`;
  return `Error: ${message}`;
}

/** A terminated reason that says the runtime never started the instance. */
function neverStarted(reason: string | undefined): boolean {
  return reason === 'StartError' || reason === 'ContainerCannotRun';
}

/** The runtime could not start this instance (it stays terminated with StartError). */
function startFailed(c: ContainerStatusLike): boolean {
  return neverStarted(c.state?.terminated?.reason);
}

/** The prefix of a rejected pod's status message (the reference's rejectPod). */
export const REJECTED = 'Pod was rejected: ';

export function podRef(pod: PodLike): ObjectReference {
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    namespace: pod.metadata.namespace ?? 'default',
    name: pod.metadata.name,
    uid: pod.metadata.uid,
  };
}

/** The reference's rejectPod: a Warning with the admission's reason and message, on the pod. */
function rejectionEvent(
  prev: PodStatusLike | undefined,
  next: PodStatusLike,
): DerivedEvent | undefined {
  if (next.phase !== 'Failed' || prev?.phase === 'Failed' || !next.message?.startsWith(REJECTED))
    return undefined;
  return {
    type: 'Warning',
    reason: next.reason ?? 'UnexpectedAdmissionError',
    message: next.message.slice(REJECTED.length),
    fieldPath: '',
  };
}

function allContainers(s: PodStatusLike | undefined): ContainerStatusLike[] {
  return [
    ...(s?.initContainerStatuses ?? []),
    ...(s?.containerStatuses ?? []),
    ...(s?.ephemeralContainerStatuses ?? []),
  ];
}

/** Created and Started: a new container instance, or a known one that is running again. */
function lifecycleEvents(
  c: ContainerStatusLike,
  p: ContainerStatusLike | undefined,
  fieldPath: string,
): DerivedEvent[] {
  const started: DerivedEvent = {
    type: 'Normal',
    reason: 'Started',
    message: `Started container ${c.name}`,
    fieldPath,
  };
  if (c.containerID && c.containerID !== p?.containerID) {
    const created: DerivedEvent = {
      type: 'Normal',
      reason: 'Created',
      message: `Created container: ${c.name}`,
      fieldPath,
    };
    if (startFailed(c)) {
      // the reference's FailedToStartContainer, with the runtime's message
      const message = c.state?.terminated?.message;
      const text = message === undefined || message === '' ? 'RunContainerError' : message;
      return [created, { type: 'Warning', reason: 'Failed', message: `Error: ${text}`, fieldPath }];
    }
    return instanceStarted(c) ? [created, started] : [created];
  }
  const runningAgain =
    c.state?.running !== undefined &&
    p !== undefined &&
    p.state?.running === undefined &&
    c.containerID !== undefined;
  return runningAgain ? [started] : [];
}

/** The reference's format.Pod: `name_namespace(uid)`. */
function podText(pod: PodLike): string {
  return `${pod.metadata.name}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid})`;
}

/** BackOff and Failed: a new waiting reason (the image's come from the start, not from here). */
function waitingEvent(
  c: ContainerStatusLike,
  p: ContainerStatusLike | undefined,
  fieldPath: string,
  pod: PodLike,
): DerivedEvent | undefined {
  const w = c.state?.waiting?.reason;
  if (w === undefined || w === p?.state?.waiting?.reason) return undefined;
  if (w === 'CrashLoopBackOff')
    return {
      type: 'Warning',
      reason: 'BackOff',
      message: `Back-off restarting failed container ${c.name} in pod ${podText(pod)}`,
      fieldPath,
    };
  if (FAILED_WAITING.has(w))
    return { type: 'Warning', reason: 'Failed', message: failedMessage(w, c), fieldPath };
  return undefined;
}

export function derivePodEvents(
  pod: PodLike,
  prev: PodStatusLike | undefined,
  next: PodStatusLike,
): DerivedEvent[] {
  const out: DerivedEvent[] = [];
  const rejected = rejectionEvent(prev, next);
  if (rejected !== undefined) out.push(rejected);
  const ephemeral = new Set((next.ephemeralContainerStatuses ?? []).map((c) => c.name));
  const init = new Set((next.initContainerStatuses ?? []).map((c) => c.name));
  const before = new Map(allContainers(prev).map((c) => [c.name, c]));
  for (const c of allContainers(next)) {
    const p = before.get(c.name);
    const list = ephemeral.has(c.name)
      ? 'ephemeralContainers'
      : init.has(c.name)
        ? 'initContainers'
        : 'containers';
    const fieldPath = `spec.${list}{${c.name}}`;
    out.push(...lifecycleEvents(c, p, fieldPath));
    const waiting = waitingEvent(c, p, fieldPath, pod);
    if (waiting !== undefined) out.push(waiting);
  }
  return out;
}
