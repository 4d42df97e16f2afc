// Pod status from container states, following the reference's phase rules.
import type {
  Container,
  ContainerState,
  ContainerStatus,
  Pod,
  PodCondition,
  PodPhase,
  PodStatus,
} from '../pod/types.js';
import { restartPolicyOf } from '../pod/types.js';
import type { RuntimeContainer } from '../runtime/types.js';

export interface StatusInputs {
  pod: Pod;
  containers: RuntimeContainer[];
  runtimeType: string;
  /** Waiting reasons set by the worker (CrashLoopBackOff, ErrImagePull, ...) by container name. */
  waiting: Map<string, { reason: string; message?: string }>;
  ready: (containerId: string) => boolean;
  hostIP?: string;
  nowIso: string;
  previous?: PodStatus;
}

const iso = (ms: number | undefined): string | undefined =>
  ms === undefined ? undefined : new Date(ms).toISOString();

function terminatedOf(c: RuntimeContainer, runtimeType: string): ContainerState {
  const startedAt = iso(c.startedAtMs);
  const finishedAt = iso(c.finishedAtMs);
  return {
    terminated: {
      exitCode: c.exitCode ?? 0,
      reason: c.reason ?? ((c.exitCode ?? 0) === 0 ? 'Completed' : 'Error'),
      ...(startedAt ? { startedAt } : {}),
      ...(finishedAt ? { finishedAt } : {}),
      containerID: `${runtimeType}://${c.id}`,
    },
  };
}

export function latestInstances(
  containers: RuntimeContainer[],
  name: string,
  kind: 'init' | 'app',
): RuntimeContainer[] {
  return containers
    .filter((c) => c.kind === kind && c.name === name)
    .sort((a, b) => b.attempt - a.attempt || b.createdAtMs - a.createdAtMs);
}

function containerStatus(
  spec: Container,
  kind: 'init' | 'app',
  inp: StatusInputs,
  defaultWaiting: string,
): ContainerStatus {
  const [latest, previous] = latestInstances(inp.containers, spec.name, kind);
  const waiting = inp.waiting.get(spec.name);
  let state: ContainerState;
  let lastState: ContainerState =
    previous?.state === 'exited' ? terminatedOf(previous, inp.runtimeType) : {};
  if (latest?.state === 'running') {
    state = { running: { startedAt: iso(latest.startedAtMs) ?? inp.nowIso } };
  } else if (waiting !== undefined) {
    state = {
      waiting: {
        reason: waiting.reason,
        ...(waiting.message !== undefined ? { message: waiting.message } : {}),
      },
    };
    if (latest?.state === 'exited') lastState = terminatedOf(latest, inp.runtimeType);
  } else if (latest?.state === 'exited') {
    state = terminatedOf(latest, inp.runtimeType);
  } else {
    state = { waiting: { reason: defaultWaiting } };
  }
  const ready = latest?.state === 'running' && inp.ready(latest.id);
  return {
    name: spec.name,
    state,
    lastState,
    ready: kind === 'init' ? latest?.state === 'exited' && latest.exitCode === 0 : ready,
    started: latest?.state === 'running',
    restartCount: latest?.attempt ?? 0,
    image: spec.image ?? '',
    imageID: latest?.imageId ?? '',
    ...(latest ? { containerID: `${inp.runtimeType}://${latest.id}` } : {}),
  };
}

function phaseOf(pod: Pod, init: ContainerStatus[], app: ContainerStatus[]): PodPhase {
  const policy = restartPolicyOf(pod);
  let pendingInit = false;
  for (const s of init) {
    const t = s.state.terminated;
    if (t?.exitCode === 0) continue;
    if (policy === 'Never' && (t || s.lastState.terminated)) return 'Failed';
    pendingInit = true;
  }
  if (pendingInit) return 'Pending';
  let waiting = 0;
  let running = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const s of app) {
    if (s.state.running) running++;
    else if (s.state.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state.waiting) {
      if (s.lastState.terminated) stopped++;
      else waiting++;
    }
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (policy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (policy === 'OnFailure') return 'Running';
    return 'Failed';
  }
  return 'Pending';
}

export function computePodStatus(inp: StatusInputs): PodStatus {
  const pod = inp.pod;
  const init = (pod.spec.initContainers ?? []).map((c) =>
    containerStatus(c, 'init', inp, 'PodInitializing'),
  );
  const initDone = init.every((s) => s.state.terminated?.exitCode === 0);
  const app = pod.spec.containers.map((c) =>
    containerStatus(c, 'app', inp, initDone ? 'ContainerCreating' : 'PodInitializing'),
  );
  const phase = phaseOf(pod, init, app);
  const sandbox = inp.containers
    .filter((c) => c.kind === 'sandbox')
    .sort((a, b) => b.attempt - a.attempt)[0];
  const allReady = app.every((s) => s.ready);
  const prevCond = new Map((inp.previous?.conditions ?? []).map((c) => [c.type, c]));
  const cond = (type: PodCondition['type'], ok: boolean, reason?: string): PodCondition => {
    const status = ok ? 'True' : 'False';
    const prev = prevCond.get(type);
    return {
      type,
      status,
      lastTransitionTime:
        prev?.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : inp.nowIso,
      ...(ok || reason === undefined ? {} : { reason }),
    };
  };
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const conditions: PodCondition[] = [
    cond('PodReadyToStartContainers', sandbox?.state === 'running'),
    cond('Initialized', initDone, 'ContainersNotInitialized'),
    cond('Ready', allReady && !terminal, terminal ? 'PodCompleted' : 'ContainersNotReady'),
    cond(
      'ContainersReady',
      allReady && !terminal,
      terminal ? 'PodCompleted' : 'ContainersNotReady',
    ),
    cond('PodScheduled', true),
  ];
  const podIP = pod.spec.hostNetwork ? inp.hostIP : sandbox?.ip;
  const startTime = inp.previous?.startTime ?? iso(sandbox?.createdAtMs) ?? inp.nowIso;
  return {
    phase,
    conditions,
    ...(inp.hostIP !== undefined ? { hostIP: inp.hostIP } : {}),
    ...(podIP ? { podIP, podIPs: [{ ip: podIP }] } : {}),
    startTime,
    ...(init.length > 0 ? { initContainerStatuses: init } : {}),
    containerStatuses: app,
  };
}
