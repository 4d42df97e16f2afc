// Pod status from container states, following the reference's phase rules (getPhase) and its
// condition generators (reasons and messages such as `containers with incomplete status: [a b]`).
import type {
  Container,
  ContainerState,
  ContainerStatus,
  Pod,
  PodCondition,
  PodPhase,
  PodStatus,
  VolumeMountStatus,
} from '../pod/types.js';
import { restartPolicyOf } from '../pod/types.js';
import type { ContainerKind, RuntimeContainer } from '../runtime/types.js';
import { podQosClass } from '../runtime/settings/qos.js';
import { foreignConditions, readyCondition, type Generated } from './readiness-gates.js';

export interface StatusInputs {
  pod: Pod;
  containers: RuntimeContainer[];
  runtimeType: string;
  /** Waiting reasons set by the worker (CrashLoopBackOff, ErrImagePull, ...) by container name. */
  waiting: Map<string, { reason: string; message?: string }>;
  ready: (containerId: string) => boolean;
  /** Whether the container's startup probe has passed (true without one). */
  started?: (containerId: string) => boolean;
  hostIP?: string;
  nowIso: string;
  previous?: PodStatus;
  /**
   * The pod was failed by the agent (DeadlineExceeded): phase Failed with this reason and message.
   */
  failed?: { reason: string; message: string };
  /** Each container status lists its mounts (the RecursiveReadOnlyMounts gate, on by default). */
  mountStatuses?: boolean;
}

const iso = (ms: number | undefined): string | undefined =>
  ms === undefined ? undefined : new Date(ms).toISOString();

/** The start of a container the runtime never started: the Unix epoch, as the reference writes it. */
const NEVER_STARTED = '1970-01-01T00:00:00Z';

function terminatedOf(c: RuntimeContainer, runtimeType: string): ContainerState {
  const startedAt = iso(c.startedAtMs) ?? NEVER_STARTED;
  const finishedAt = iso(c.finishedAtMs);
  return {
    terminated: {
      exitCode: c.exitCode ?? 0,
      reason: c.reason ?? ((c.exitCode ?? 0) === 0 ? 'Completed' : 'Error'),
      ...(c.message !== undefined && c.message !== '' ? { message: c.message } : {}),
      ...(startedAt ? { startedAt } : {}),
      ...(finishedAt ? { finishedAt } : {}),
      containerID: `${runtimeType}://${c.id}`,
    },
  };
}

export function latestInstances(
  containers: RuntimeContainer[],
  name: string,
  kind: Exclude<ContainerKind, 'sandbox'>,
): RuntimeContainer[] {
  return containers
    .filter((c) => c.kind === kind && c.name === name)
    .sort((a, b) => b.attempt - a.attempt || b.createdAtMs - a.createdAtMs);
}

/** An init container with restartPolicy Always. */
function sidecar(c: Container): boolean {
  return c.restartPolicy === 'Always';
}

/**
 * The reference's ShouldContainerBeRestarted: a container never made, or made and not started,
 * is started; an exited one by the restart policy (a sidecar's own Always first). Only then does
 * a sync's waiting reason (CrashLoopBackOff, RunContainerError...) replace its terminated state.
 */
function willRestart(pod: Pod, spec: Container, latest: RuntimeContainer | undefined): boolean {
  if (pod.metadata.deletionTimestamp !== undefined) return false;
  if (latest === undefined || latest.state === 'created' || latest.state === 'unknown') return true;
  if (latest.state === 'running') return false;
  const policy = spec.restartPolicy === 'Always' ? 'Always' : restartPolicyOf(pod);
  if (policy === 'Never') return false;
  return policy === 'Always' || (latest.exitCode ?? 0) !== 0;
}

function stateOf(
  latest: RuntimeContainer | undefined,
  previous: RuntimeContainer | undefined,
  waiting: { reason: string; message?: string } | undefined,
  inp: StatusInputs,
  defaultWaiting: string,
): { state: ContainerState; lastState: ContainerState } {
  const lastState: ContainerState =
    previous?.state === 'exited' ? terminatedOf(previous, inp.runtimeType) : {};
  if (latest?.state === 'running')
    return { state: { running: { startedAt: iso(latest.startedAtMs) ?? inp.nowIso } }, lastState };
  if (waiting !== undefined) {
    const state = {
      waiting: {
        reason: waiting.reason,
        ...(waiting.message !== undefined ? { message: waiting.message } : {}),
      },
    };
    return {
      state,
      lastState: latest?.state === 'exited' ? terminatedOf(latest, inp.runtimeType) : lastState,
    };
  }
  if (latest?.state === 'exited')
    return { state: terminatedOf(latest, inp.runtimeType), lastState };
  return { state: { waiting: { reason: defaultWaiting } }, lastState };
}

function containerStatus(
  spec: Container,
  kind: Exclude<ContainerKind, 'sandbox'>,
  inp: StatusInputs,
  defaultWaiting: string,
): ContainerStatus {
  const [latest, previous] = latestInstances(inp.containers, spec.name, kind);
  const { state, lastState } = stateOf(
    latest,
    previous,
    willRestart(inp.pod, spec, latest) ? inp.waiting.get(spec.name) : undefined,
    inp,
    defaultWaiting,
  );
  const running = latest?.state === 'running';
  const started = running && (inp.started?.(latest.id) ?? true);
  const probedReady = running && inp.ready(latest.id);
  const ready =
    kind === 'init' && !sidecar(spec)
      ? latest?.state === 'exited' && latest.exitCode === 0
      : probedReady;
  return {
    name: spec.name,
    state,
    lastState,
    ready,
    started,
    restartCount: latest?.attempt ?? 0,
    image: spec.image ?? '',
    imageID: latest?.imageId ?? '',
    ...(latest ? { containerID: `${inp.runtimeType}://${latest.id}` } : {}),
    ...(inp.mountStatuses === true ? { volumeMounts: mountStatuses(spec) } : {}),
  };
}

/**
 * The reference's VolumeMountStatus list: each mount of the spec, in order; a read-only one with
 * recursiveReadOnly Disabled (the agent mounts no submount read-only: a pod asking for Enabled or
 * IfPossible is refused at admission).
 */
function mountStatuses(spec: Container): VolumeMountStatus[] {
  return (spec.volumeMounts ?? []).map((m) => ({
    name: m.name,
    mountPath: m.mountPath,
    ...(m.readOnly === true ? { readOnly: true, recursiveReadOnly: 'Disabled' as const } : {}),
  }));
}

/**
 * The reference's ephemeralContainerStatuses: the default waiting reason is PodInitializing when
 * the pod has init containers; the prober never reports them, so never ready and no `started`.
 */
function ephemeralStatuses(inp: StatusInputs): ContainerStatus[] {
  const defaultWaiting =
    (inp.pod.spec.initContainers ?? []).length > 0 ? 'PodInitializing' : 'ContainerCreating';
  return (inp.pod.spec.ephemeralContainers ?? []).map((ec) => {
    const { started: _started, ...s } = containerStatus(ec, 'ephemeral', inp, defaultWaiting);
    return { ...s, ready: false };
  });
}

interface Counts {
  running: number;
  waiting: number;
  stopped: number;
  succeeded: number;
  pendingSidecars: number;
}

function countSidecars(pod: Pod, init: ContainerStatus[], n: Counts): void {
  (pod.spec.initContainers ?? []).forEach((spec, i) => {
    const s = init[i];
    if (!sidecar(spec) || s === undefined) return;
    if (s.state.running) {
      if (s.started !== true) n.pendingSidecars++;
      n.running++;
    } else if (s.state.waiting && !s.lastState.terminated) {
      n.pendingSidecars++;
      n.waiting++;
    }
  });
}

function countApps(app: ContainerStatus[], n: Counts): void {
  for (const s of app) {
    if (s.state.running) n.running++;
    else if (s.state.terminated) {
      n.stopped++;
      if (s.state.terminated.exitCode === 0) n.succeeded++;
    } else if (s.lastState.terminated) n.stopped++;
    else n.waiting++;
  }
}

/** The reference's HasAnyRegularContainerStarted, for one container: it runs or ran. */
function hasRun(s: ContainerStatus): boolean {
  return (
    s.state.running !== undefined ||
    s.state.terminated !== undefined ||
    s.lastState.terminated !== undefined
  );
}

/** The reference's getPhase, sidecars included. */
function phaseOf(pod: Pod, init: ContainerStatus[], app: ContainerStatus[]): PodPhase {
  const policy = restartPolicyOf(pod);
  let pendingInit = 0;
  let failedInit = 0;
  (pod.spec.initContainers ?? []).forEach((spec, i) => {
    const s = init[i];
    if (sidecar(spec) || s === undefined) return;
    const t = s.state.terminated ?? (s.state.waiting ? s.lastState.terminated : undefined);
    if (t !== undefined) {
      if (t.exitCode !== 0) failedInit++;
    } else pendingInit++;
  });
  const n: Counts = { running: 0, waiting: 0, stopped: 0, succeeded: 0, pendingSidecars: 0 };
  countSidecars(pod, init, n);
  countApps(app, n);
  if (failedInit > 0 && policy === 'Never') return 'Failed';
  const anyAppStarted = app.some(hasRun);
  if (pendingInit > 0 || (n.pendingSidecars > 0 && !anyAppStarted) || n.waiting > 0)
    return 'Pending';
  if (n.running > 0) return 'Running';
  if (n.stopped > 0) {
    if (policy === 'Always') return 'Running';
    if (n.stopped === n.succeeded) return 'Succeeded';
    if (policy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

/** Go's %s of a []string: `[a b]`. */
function nameList(names: string[]): string {
  return `[${names.join(' ')}]`;
}

/** The reference's GeneratePodInitializedCondition. */
function initializedCondition(
  pod: Pod,
  init: ContainerStatus[],
  app: ContainerStatus[],
  phase: PodPhase,
): Generated {
  const incomplete = (pod.spec.initContainers ?? [])
    .filter((spec, i) => {
      const s = init[i];
      return s === undefined || (sidecar(spec) ? s.started !== true : !s.ready);
    })
    .map((c) => c.name);
  if (phase === 'Succeeded') return { type: 'Initialized', status: 'True', reason: 'PodCompleted' };
  if (app.some(hasRun)) return { type: 'Initialized', status: 'True' };
  if (incomplete.length === 0) return { type: 'Initialized', status: 'True' };
  return {
    type: 'Initialized',
    status: 'False',
    reason: 'ContainersNotInitialized',
    message: `containers with incomplete status: ${nameList(incomplete)}`,
  };
}

/** The reference's GenerateContainersReadyCondition (Ready takes it over while it is not True). */
function containersReadyCondition(
  pod: Pod,
  init: ContainerStatus[],
  app: ContainerStatus[],
  phase: PodPhase,
): Generated {
  if (phase === 'Succeeded')
    return { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' };
  if (phase === 'Failed') return { type: 'ContainersReady', status: 'False', reason: 'PodFailed' };
  const unready = [
    ...(pod.spec.initContainers ?? []).filter((c, i) => sidecar(c) && init[i]?.ready !== true),
    ...pod.spec.containers.filter((_, i) => app[i]?.ready !== true),
  ].map((c) => c.name);
  if (unready.length === 0) return { type: 'ContainersReady', status: 'True' };
  return {
    type: 'ContainersReady',
    status: 'False',
    reason: 'ContainersNotReady',
    message: `containers with unready status: ${nameList(unready)}`,
  };
}

function conditionsOf(inp: StatusInputs, generated: Generated[]): PodCondition[] {
  const prevCond = new Map((inp.previous?.conditions ?? []).map((c) => [c.type, c]));
  return generated.map((g) => {
    const prev = prevCond.get(g.type);
    return {
      type: g.type,
      status: g.status,
      lastTransitionTime:
        prev?.status === g.status && prev.lastTransitionTime ? prev.lastTransitionTime : inp.nowIso,
      ...(g.reason !== undefined ? { reason: g.reason } : {}),
      ...(g.message !== undefined ? { message: g.message } : {}),
    };
  });
}

export function computePodStatus(inp: StatusInputs): PodStatus {
  const pod = inp.pod;
  const init = (pod.spec.initContainers ?? []).map((c) =>
    containerStatus(c, 'init', inp, 'PodInitializing'),
  );
  const initDone = (pod.spec.initContainers ?? []).every((spec, i) =>
    sidecar(spec) ? init[i]?.started === true : init[i]?.state.terminated?.exitCode === 0,
  );
  const app = pod.spec.containers.map((c) =>
    containerStatus(c, 'app', inp, initDone ? 'ContainerCreating' : 'PodInitializing'),
  );
  const ephemeral = ephemeralStatuses(inp);
  const phase = inp.failed !== undefined ? 'Failed' : phaseOf(pod, init, app);
  const sandbox = inp.containers
    .filter((c) => c.kind === 'sandbox')
    .sort((a, b) => b.attempt - a.attempt)[0];
  const ready = containersReadyCondition(pod, init, app, phase);
  const foreign = foreignConditions(pod);
  const conditions = [
    ...foreign,
    ...conditionsOf(inp, [
      {
        type: 'PodReadyToStartContainers',
        status: sandbox?.state === 'running' ? 'True' : 'False',
      },
      initializedCondition(pod, init, app, phase),
      readyCondition(pod, foreign, ready),
      ready,
      { type: 'PodScheduled', status: 'True' },
    ]),
  ];
  const podIP = pod.spec.hostNetwork ? inp.hostIP : sandbox?.ip;
  const startTime = inp.previous?.startTime ?? iso(sandbox?.createdAtMs) ?? inp.nowIso;
  return {
    phase,
    conditions,
    ...(inp.failed ?? {}),
    ...(inp.hostIP !== undefined ? { hostIP: inp.hostIP, hostIPs: [{ ip: inp.hostIP }] } : {}),
    ...(podIP ? { podIP, podIPs: [{ ip: podIP }] } : {}),
    startTime,
    ...(init.length > 0 ? { initContainerStatuses: init } : {}),
    containerStatuses: app,
    ...(ephemeral.length > 0 ? { ephemeralContainerStatuses: ephemeral } : {}),
    qosClass: podQosClass(pod),
  };
}
