// CRI answers (PodSandbox, Container, ContainerStatus, PodSandboxStatus) to the agent's
// RuntimeContainer, checked and bounded: a runtime's answer with missing or absurd fields (an
// unknown state, a time before 1970 or after 9999, an exit code outside int32, a reason of
// megabytes, labels that are not ours) never reaches the pod workers as it came. Containers
// without this agent's labels are left out; a field out of bounds is dropped or cut, and said.
import {
  LABELS,
  type ContainerKind,
  type ContainerRunState,
  type RuntimeContainer,
} from '../types.js';
import {
  ContainerState,
  PodSandboxState,
  type Container,
  type ContainerStatus,
  type PodSandbox,
} from './types.generated.js';

/** The longest reason and message kept from a runtime (the rest is cut). */
export const MAX_STATUS_TEXT = 4096;
/** Nanoseconds since the epoch of 9999-12-31: later times are absurd. */
const MAX_TIME_NS = 253402300799e9;

/** ns since the epoch to ms; undefined when zero, negative, not finite or after 9999. */
export function nsToMs(ns: number | undefined): number | undefined {
  if (ns === undefined || !Number.isFinite(ns) || ns <= 0 || ns > MAX_TIME_NS) return undefined;
  return Math.floor(ns / 1e6);
}

export function boundedText(s: string | undefined): string | undefined {
  if (s === undefined || s === '') return undefined;
  return s.length > MAX_STATUS_TEXT ? `${s.slice(0, MAX_STATUS_TEXT)}…` : s;
}

const KINDS: readonly ContainerKind[] = ['sandbox', 'init', 'app', 'ephemeral'];

function kindOf(labels: Record<string, string>, fallback: ContainerKind): ContainerKind {
  const k = labels[LABELS.kind];
  return KINDS.find((x) => x === k) ?? fallback;
}

function attemptOf(labels: Record<string, string>, meta: number | undefined): number {
  const n = Number(labels[LABELS.attempt] ?? meta ?? 0);
  return Number.isInteger(n) && n >= 0 && n <= 1_000_000 ? n : 0;
}

const CONTAINER_STATES: Readonly<Record<number, ContainerRunState>> = {
  [ContainerState.CONTAINER_CREATED]: 'created',
  [ContainerState.CONTAINER_RUNNING]: 'running',
  [ContainerState.CONTAINER_EXITED]: 'exited',
  [ContainerState.CONTAINER_UNKNOWN]: 'unknown',
};

export function containerStateOf(s: number | undefined): ContainerRunState {
  return CONTAINER_STATES[s ?? ContainerState.CONTAINER_CREATED] ?? 'unknown';
}

/** Whether the labels are this agent's (and, with a node name, this node's). */
export function isOurs(labels: Record<string, string> | undefined, nodeName?: string): boolean {
  if (labels?.[LABELS.managed] !== 'true') return false;
  if (labels[LABELS.podUid] === undefined || labels[LABELS.podUid] === '') return false;
  return nodeName === undefined || labels[LABELS.node] === nodeName;
}

function podIdentity(labels: Record<string, string>) {
  return {
    podUid: labels[LABELS.podUid] ?? '',
    podName: labels[LABELS.podName] ?? '',
    podNamespace: labels[LABELS.podNamespace] ?? '',
  };
}

/** A sandbox from ListPodSandbox; `ip` from its PodSandboxStatus when ready. */
export function sandboxOf(s: PodSandbox, ip: string | undefined): RuntimeContainer {
  const labels = s.labels ?? {};
  // proto3 leaves the zero value (SANDBOX_READY) off the wire
  const ready = (s.state ?? PodSandboxState.SANDBOX_READY) === PodSandboxState.SANDBOX_READY;
  const created = nsToMs(s.created_at) ?? 0;
  return {
    id: s.id ?? '',
    ...podIdentity(labels),
    name: '',
    kind: 'sandbox',
    attempt: attemptOf(labels, s.metadata?.attempt),
    specHash: '',
    image: '',
    imageId: '',
    state: ready ? 'running' : 'exited',
    ...(ready ? {} : { exitCode: 0 }),
    createdAtMs: created,
    ...(ready ? { startedAtMs: created } : {}),
    ...(ip !== undefined && ip !== '' ? { ip } : {}),
  };
}

/**
 * How an exited container ended: its code, reason and the runtime's message (why it could not
 * start, for a StartError), as the reference's terminated state has them.
 */
function exitOf(st: ContainerStatus): { exitCode: number; reason: string; message?: string } {
  const code = st.exit_code ?? 0;
  const exitCode = Number.isInteger(code) && code >= -(2 ** 31) && code < 2 ** 31 ? code : 1;
  const reason = boundedText(st.reason) ?? (exitCode === 0 ? 'Completed' : 'Error');
  const message = boundedText(st.message);
  return { exitCode, reason, ...(message !== undefined ? { message } : {}) };
}

/** A container from ListContainers, with what its ContainerStatus adds (times, exit, reason). */
export function containerOf(c: Container, st: ContainerStatus | undefined): RuntimeContainer {
  const labels = c.labels ?? {};
  const state = containerStateOf(st?.state ?? c.state);
  const started = nsToMs(st?.started_at);
  const finished = nsToMs(st?.finished_at);
  return {
    id: c.id ?? '',
    ...podIdentity(labels),
    name: labels[LABELS.containerName] ?? c.metadata?.name ?? '',
    kind: kindOf(labels, 'app'),
    attempt: attemptOf(labels, c.metadata?.attempt),
    specHash: labels[LABELS.specHash] ?? '',
    image: st?.image?.image ?? c.image?.image ?? '',
    imageId: st?.image_ref ?? c.image_ref ?? '',
    state,
    ...(state === 'exited' && st !== undefined ? exitOf(st) : {}),
    createdAtMs: nsToMs(st?.created_at ?? c.created_at) ?? 0,
    ...(started !== undefined ? { startedAtMs: started } : {}),
    ...(finished !== undefined && state === 'exited' ? { finishedAtMs: finished } : {}),
    sandboxId: labels[LABELS.sandboxId] ?? c.pod_sandbox_id ?? '',
    ...(labels[LABELS.terminationMessageFile] !== undefined
      ? { terminationMessageFile: labels[LABELS.terminationMessageFile] }
      : {}),
  };
}
