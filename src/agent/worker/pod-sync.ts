// One pass of bringing a pod's containers to what its spec asks: sandbox, init containers in
// order, app containers with restart policy and crash-loop back-off, probes, then the status.
// The pod workers call it serially per pod, so it may assume nothing else touches the pod.
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { joinUnder, mkdirUnder } from '../../common/util/safe-path.js';
import { userMessage } from '../../common/util/errors.js';
import { restartPolicyOf, type Container, type Pod, type PodStatus } from '../pod/types.js';
import type {
  ContainerMount,
  ContainerRuntime,
  ImageService,
  RuntimeContainer,
} from '../runtime/types.js';
import type { ResolveEnvironment } from '../pod/expand.js';
import { refusedContainerFields } from '../pod/refusals.js';
import { Backoff } from './backoff.js';
import { ContainerKiller, killingEvent } from './container-kill.js';
import {
  ContainerStarter,
  containerSpecHash,
  type PodLogLinker,
  type StartTarget,
  type SyncResult,
} from './container-start.js';
import { computePodStatus, latestInstances } from './pod-status.js';
import { activeDeadlineLeftMs, DEADLINE_EXCEEDED } from './active-deadline.js';
import { limitTerminationMessages, TerminationMessages } from './termination-message.js';
import { ephemeralCommon, ephemeralToStart } from './ephemeral-containers.js';
import type { PullCredentials } from './pull-credentials.js';

export { containerSpecHash, type SyncResult };
import type { ProbeManager } from './probes.js';
import { restartGrace } from './restart-grace.js';
import type { PodStatusManager } from './status-manager.js';
import { StepTimes } from './step-times.js';

export interface PodSyncerOptions {
  runtime: ContainerRuntime;
  images: ImageService;
  probes: ProbeManager;
  statuses: PodStatusManager;
  clock: Clock;
  logger: Logger;
  rootDir: string;
  hostIP?: string;
  /** Container statuses list their mounts (the RecursiveReadOnlyMounts feature gate). */
  mountStatuses?: boolean;
  /** Crash-loop back-off; injected so tests can shorten it. */
  backoff?: Backoff;
  imagePullBackoff?: Backoff;
  /**
   * --cgroups-per-qos: each pod's cgroup, made before its sandbox and removed after its containers.
   */
  podCgroups?: PodCgroupLifecycle;
  /**
   * Volumes mounted by plugins (FlexVolume, --volume-plugin-dir): set up before the sandbox, torn
   * down with the pod.
   */
  volumes?: PodVolumePlugins;
  /** podLogsDir: each started container's log linked where the reference puts it. */
  podLogs?: PodLogLinker;
  /**
   * Each container's environment, command and args (src/agent/env); env[].value only when absent.
   */
  environment?: ResolveEnvironment;
  /** The pod's image pull secrets as credentials for an image (pull-credentials.ts). */
  pullCredentials?: PullCredentials;
  /** runtimeClassName to its handler (objects/runtime-classes.ts); absent: the default handler. */
  runtimeHandler?: (runtimeClassName: string | undefined) => Promise<string>;
}

/** What pod sync asks of the pod cgroups (src/agent/cgroups/pod-cgroups.ts). */
export interface PodCgroupLifecycle {
  ensure(pod: Pod): Promise<void>;
  remove(pod: Pod): Promise<void>;
}

export interface PodVolumePlugins {
  /** The host dir of a volume; undefined for those pod sync places itself (hostPath, emptyDir). */
  path(pod: Pod, v: NonNullable<Pod['spec']['volumes']>[number]): string | undefined;
  /** Sets up or refreshes the pod's volumes at every sync; throws while one never could be. */
  setUp(pod: Pod): Promise<void>;
  tearDown(pod: Pod): Promise<void>;
  /**
   * The container's mounts (subPath, read-only, propagation); throws a CreateContainerConfigError
   * message.
   */
  containerMounts?(
    pod: Pod,
    c: Container,
    env: Readonly<Record<string, string>>,
  ): Promise<readonly ContainerMount[]>;
}

const TERMINAL = new Set(['Succeeded', 'Failed']);

/** What one sync pass over a pod's containers shares once its sandbox runs. */
interface SyncPass extends StartTarget {
  policy: ReturnType<typeof restartPolicyOf>;
  /**
   * Every container of the pod, listed after the sandbox check (attempt numbers count them all).
   */
  containers: RuntimeContainer[];
  /** The containers of the current sandbox. */
  live: RuntimeContainer[];
  /** Asks for another pass after `ms` (the soonest asked for wins). */
  wantRequeue: (ms: number) => void;
}

export class PodSyncer {
  readonly backoff: Backoff;
  readonly imagePullBackoff: Backoff;
  private readonly opts: PodSyncerOptions;
  /** Waiting reasons per pod uid and container name, kept until the container runs. */
  private readonly waiting = new Map<string, Map<string, { reason: string; message?: string }>>();
  private readonly killer: ContainerKiller;
  private readonly starter: ContainerStarter;
  private readonly messages = new TerminationMessages();
  /** The work in flight per pod uid, aborted by `interrupt` (a kill is waiting behind it). */
  private readonly inFlight = new Map<string, AbortController>();

  constructor(opts: PodSyncerOptions) {
    this.opts = opts;
    this.killer = new ContainerKiller({
      runtime: opts.runtime,
      clock: opts.clock,
      logger: opts.logger,
      recordEvent: (e) => opts.statuses.recordEvent(e),
    });
    this.backoff = opts.backoff ?? new Backoff({ clock: opts.clock });
    this.imagePullBackoff = opts.imagePullBackoff ?? new Backoff({ clock: opts.clock });
    this.starter = new ContainerStarter({
      runtime: opts.runtime,
      images: opts.images,
      clock: opts.clock,
      rootDir: opts.rootDir,
      backoff: this.backoff,
      imagePullBackoff: this.imagePullBackoff,
      killer: this.killer,
      ...(opts.podLogs !== undefined ? { podLogs: opts.podLogs } : {}),
      recordEvent: (e) => opts.statuses.recordEvent(e),
      waitingOf: (uid) => this.waitingOf(uid),
      volumePaths: (pod) => this.volumePaths(pod),
      containerMounts: async (pod, c, env) => this.opts.volumes?.containerMounts?.(pod, c, env),
      ...(opts.environment !== undefined ? { environment: opts.environment } : {}),
      ...(opts.pullCredentials !== undefined ? { pullCredentials: opts.pullCredentials } : {}),
    });
  }

  private waitingOf(uid: string): Map<string, { reason: string; message?: string }> {
    let m = this.waiting.get(uid);
    if (!m) {
      m = new Map();
      this.waiting.set(uid, m);
    }
    return m;
  }

  volumePaths(pod: Pod): Record<string, string> {
    const out: Record<string, string> = {};
    for (const v of pod.spec.volumes ?? []) {
      const plugin = this.opts.volumes?.path(pod, v);
      if (v.hostPath) out[v.name] = v.hostPath.path;
      else if (plugin !== undefined) out[v.name] = plugin;
      else out[v.name] = joinUnder(this.opts.rootDir, 'pods', pod.metadata.uid, 'volumes', v.name);
    }
    return out;
  }

  private async publishStatus(
    pod: Pod,
    listed: RuntimeContainer[],
    failed?: { reason: string; message: string },
  ): Promise<PodStatus> {
    const { statuses, probes, runtime, clock } = this.opts;
    const previous = statuses.status(pod.metadata.uid);
    const containers = await this.messages.fill(pod, listed, (id, tailLines) =>
      runtime.logs(id, { tailLines }),
    );
    const computed = computePodStatus({
      pod,
      containers,
      runtimeType: runtime.type,
      waiting: this.waitingOf(pod.metadata.uid),
      ready: (id) => probes.ready(id),
      started: (id) => probes.started(id),
      nowIso: clock.now().toISOString(),
      ...(this.opts.hostIP !== undefined ? { hostIP: this.opts.hostIP } : {}),
      ...(previous !== undefined ? { previous } : {}),
      ...(failed !== undefined ? { failed } : {}),
      ...(this.opts.mountStatuses === true ? { mountStatuses: true } : {}),
    });
    const status = limitTerminationMessages(pod, computed);
    statuses.set(pod, status);
    return status;
  }

  /** Ends the work in flight for a pod (a postStart hook), so that a kill queued behind it runs. */
  interrupt(uid: string): void {
    this.inFlight.get(uid)?.abort();
  }

  async syncPod(pod: Pod): Promise<SyncResult> {
    const { runtime, logger, clock } = this.opts;
    const uid = pod.metadata.uid;
    const log = logger.child({ pod: `${pod.metadata.namespace}/${pod.metadata.name}`, uid });
    const listed = await runtime.listContainers({ podUid: uid });
    const prev = this.opts.statuses.status(uid);
    if (prev && TERMINAL.has(prev.phase)) {
      // a finished pod stays finished: make sure nothing of it still runs; its cgroup goes (and
      // leaves the QoS shares), as the reference's housekeeping removes a finished pod's
      await this.stopPodContainers(pod, listed, false);
      await this.opts.podCgroups?.remove(pod);
      return {};
    }
    const deadlineLeft = activeDeadlineLeftMs(
      pod.spec.activeDeadlineSeconds,
      prev?.startTime,
      clock.nowMs(),
    );
    if (deadlineLeft !== undefined && deadlineLeft <= 0) {
      await this.failPastDeadline(pod, listed, log);
      return {};
    }
    const ac = new AbortController();
    this.inFlight.set(uid, ac);
    try {
      const requeue = await this.syncRunning(pod, listed, log, ac.signal);
      // the first pass sets startTime, from which the deadline counts
      const untilDeadline = activeDeadlineLeftMs(
        pod.spec.activeDeadlineSeconds,
        this.opts.statuses.status(uid)?.startTime,
        clock.nowMs(),
      );
      const soonest = [requeue, untilDeadline].filter((n) => n !== undefined);
      return soonest.length === 0 ? {} : { requeueAfterMs: Math.min(...soonest) };
    } finally {
      if (this.inFlight.get(uid) === ac) this.inFlight.delete(uid);
    }
  }

  /**
   * The pass over a pod that runs: sandbox, init containers and sidecars, app containers, status.
   */
  private async syncRunning(
    pod: Pod,
    listed: RuntimeContainer[],
    log: Logger,
    signal: AbortSignal,
  ): Promise<number | undefined> {
    const steps = new StepTimes(this.opts.clock);
    await this.opts.podCgroups?.ensure(pod);
    await this.setUpVolumes(pod, listed);
    steps.mark('volumes');
    const { sandbox, containers } = await this.ensureSandbox(pod, listed, log);
    steps.mark('sandbox');
    let requeue: number | undefined;
    const pass: SyncPass = {
      pod,
      log,
      sandboxId: sandbox.id,
      podIP: pod.spec.hostNetwork ? (this.opts.hostIP ?? '127.0.0.1') : sandbox.ip,
      signal,
      policy: restartPolicyOf(pod),
      containers,
      // containers of an older sandbox are stale: not considered further
      live: containers.filter((c) => c.kind !== 'sandbox' && c.sandboxId === sandbox.id),
      wantRequeue: (ms) => {
        requeue = requeue === undefined ? ms : Math.min(requeue, ms);
      },
    };
    // ephemeral containers first: they may start before the pod has initialized
    await this.syncEphemeral(pass);
    // init containers, in order; app containers start only after all of them succeeded (and
    // every sidecar started)
    if (await this.syncInitContainers(pass)) {
      for (const c of pod.spec.containers) {
        if (signal.aborted) break;
        await this.syncAppContainer(pass, c);
      }
    }
    steps.mark('containers');
    const host = pod.spec.hostNetwork ? '127.0.0.1' : (sandbox.ip ?? '127.0.0.1');
    await this.finishPass(pass, host);
    steps.mark('status');
    log.debug({ v: 4, ...steps.times }, 'pod sync pass');
    return requeue;
  }

  /** activeDeadlineSeconds has passed: the event, the containers killed, the pod Failed. */
  private async failPastDeadline(pod: Pod, listed: RuntimeContainer[], log: Logger): Promise<void> {
    log.info({ activeDeadlineSeconds: pod.spec.activeDeadlineSeconds }, DEADLINE_EXCEEDED.message);
    this.opts.statuses.recordEvent({ pod, type: 'Normal', ...DEADLINE_EXCEEDED });
    await this.publishStatus(pod, listed, DEADLINE_EXCEEDED);
    await this.stopPodContainers(pod, listed, false);
    const after = await this.opts.runtime.listContainers({ podUid: pod.metadata.uid });
    await this.publishStatus(pod, after, DEADLINE_EXCEEDED);
  }

  /**
   * The pod's volumes, set up or refreshed; while one never could be, the pod's status says its
   * containers wait.
   */
  private async setUpVolumes(pod: Pod, listed: RuntimeContainer[]): Promise<void> {
    try {
      await this.opts.volumes?.setUp(pod);
    } catch (err) {
      await this.publishStatus(pod, listed);
      throw err;
    }
  }

  /**
   * The pod's running sandbox, made (after its volumes) when there is none or it stopped; with the
   * containers listed after.
   */
  private async ensureSandbox(
    pod: Pod,
    containers: RuntimeContainer[],
    log: Logger,
  ): Promise<{ sandbox: RuntimeContainer; containers: RuntimeContainer[] }> {
    const { runtime } = this.opts;
    const current = containers
      .filter((c) => c.kind === 'sandbox')
      .sort((a, b) => b.attempt - a.attempt)[0];
    if (current?.state === 'running') return { sandbox: current, containers };
    if (current !== undefined) {
      log.warn('pod sandbox is not running; recreating the pod sandbox and its containers');
      await this.stopPodContainers(pod, containers, false);
    }
    for (const v of pod.spec.volumes ?? []) {
      if (v.emptyDir)
        await mkdirUnder(this.opts.rootDir, ['pods', pod.metadata.uid, 'volumes', v.name]);
    }
    const attempt = current === undefined ? 0 : current.attempt + 1;
    await this.createSandbox(pod, attempt, containers);
    const listed = await runtime.listContainers({ podUid: pod.metadata.uid });
    const sandbox = listed
      .filter((c) => c.kind === 'sandbox' && c.state === 'running')
      .sort((a, b) => b.attempt - a.attempt)[0];
    if (sandbox === undefined) throw new Error('pod sandbox did not start');
    return { sandbox, containers: listed };
  }

  /**
   * The sandbox with the handler of the pod's RuntimeClass; a failure (a RuntimeClass not found,
   * a handler the runtime does not have) is the reference's FailedCreatePodSandBox event, the
   * pod's status published (its containers waiting) and the error thrown (the worker retries).
   */
  private async createSandbox(
    pod: Pod,
    attempt: number,
    containers: RuntimeContainer[],
  ): Promise<void> {
    try {
      const handler = (await this.opts.runtimeHandler?.(pod.spec.runtimeClassName)) ?? '';
      await this.opts.runtime.runPodSandbox({
        pod,
        attempt,
        ...(handler !== '' ? { runtimeHandler: handler } : {}),
      });
    } catch (err) {
      this.opts.statuses.recordEvent({
        pod,
        type: 'Warning',
        reason: 'FailedCreatePodSandBox',
        message: `Failed to create pod sandbox: ${userMessage(err)}`,
      });
      await this.publishStatus(pod, containers);
      throw err;
    }
  }

  /**
   * Init containers in order: a regular one must succeed before the next starts; a sidecar
   * (restartPolicy Always) must have started (its startup probe passed) and is restarted whenever
   * it exits. True when the app containers may run (or already ran).
   */
  private async syncInitContainers(pass: SyncPass): Promise<boolean> {
    const { pod, log } = pass;
    const appsRan = pass.live.some((c) => c.kind === 'app');
    for (const ic of pod.spec.initContainers ?? []) {
      if (pass.signal.aborted) return false;
      const [latest] = latestInstances(pass.live, ic.name, 'init');
      if (isSidecar(ic)) {
        if (!(await this.syncSidecar(pass, ic, latest)) && !appsRan) return false;
        continue;
      }
      if (appsRan || (latest?.state === 'exited' && latest.exitCode === 0)) continue;
      if (latest?.state === 'running') return false;
      if (latest === undefined) {
        const attempt = nextAttempt(pass.containers, ic.name, 'init');
        wantRequeueFrom(await this.starter.start(pass, ic, 'init', attempt), pass.wantRequeue);
      } else if (pass.policy === 'Never') {
        log.info(
          { container: ic.name, exitCode: latest.exitCode },
          'init container failed and restartPolicy is Never: pod failed',
        );
      } else {
        wantRequeueFrom(await this.restartWithBackoff(pass, ic, 'init', latest), pass.wantRequeue);
      }
      return false;
    }
    return true;
  }

  /**
   * Keeps a sidecar running (restarted with back-off, whatever the pod's policy); true once it has
   * started.
   */
  private async syncSidecar(
    pass: SyncPass,
    ic: Container,
    latest: RuntimeContainer | undefined,
  ): Promise<boolean> {
    if (appContainersDone(pass)) return true;
    if (latest?.state === 'running') {
      this.waitingOf(pass.pod.metadata.uid).delete(ic.name);
      this.opts.probes.ensure(pass.pod, ic, latest.id, pass.podIP ?? '127.0.0.1');
      const failed = this.opts.probes.shouldRestart(latest.id);
      if (failed === undefined) return this.opts.probes.started(latest.id);
      this.opts.probes.stopContainer(latest.id);
      await this.killOne(pass, ic, latest, pass.pod.spec.terminationGracePeriodSeconds ?? 30);
      return false;
    }
    if (latest === undefined) {
      const attempt = nextAttempt(pass.containers, ic.name, 'init');
      const r = await this.starter.start(pass, ic, 'init', attempt);
      wantRequeueFrom(r, pass.wantRequeue);
      // without a startup probe a sidecar has started once it runs (its postStart returned)
      return r.requeueAfterMs === undefined && ic.startupProbe === undefined;
    } else {
      this.opts.probes.stopContainer(latest.id);
      wantRequeueFrom(await this.restartWithBackoff(pass, ic, 'init', latest), pass.wantRequeue);
    }
    return false;
  }

  /** Starts the ephemeral containers that never had an instance (they are never restarted). */
  private async syncEphemeral(pass: SyncPass): Promise<void> {
    const rt = this.opts.runtime.type === 'process' ? 'process' : 'docker';
    const refused = (c: Container, path: string): string[] => refusedContainerFields(c, path, rt);
    for (const e of ephemeralToStart(pass.pod, pass.containers, refused)) {
      if (pass.signal.aborted) return;
      const r =
        e.error !== undefined
          ? this.starter.failStart(pass, e.container, 'CreateContainerConfigError', e.error)
          : await this.starter.start(pass, e.container, 'ephemeral', 0, e.targetContainerId);
      wantRequeueFrom(r, pass.wantRequeue);
    }
  }

  /** Starts an app container that never ran, restarts an exited one by the restart policy. */
  private async syncAppContainer(pass: SyncPass, c: Container): Promise<void> {
    const [latest] = latestInstances(pass.live, c.name, 'app');
    if (latest === undefined) {
      const attempt = nextAttempt(pass.containers, c.name, 'app');
      wantRequeueFrom(await this.starter.start(pass, c, 'app', attempt), pass.wantRequeue);
      return;
    }
    if (latest.state === 'running') {
      await this.syncRunningContainer(pass, c, latest);
      return;
    }
    this.opts.probes.stopContainer(latest.id);
    const restart =
      pass.policy === 'Always' ||
      (pass.policy === 'OnFailure' && (latest.exitCode ?? 1) !== 0) ||
      latest.state === 'created';
    if (!restart) return;
    wantRequeueFrom(await this.restartWithBackoff(pass, c, 'app', latest), pass.wantRequeue);
  }

  /**
   * A running container is replaced when its spec changed, and restarted (by the policy, with
   * back-off) when a probe failed.
   */
  private async syncRunningContainer(
    pass: SyncPass,
    c: Container,
    latest: RuntimeContainer,
  ): Promise<void> {
    const { pod, log } = pass;
    const { runtime, probes } = this.opts;
    const hash = containerSpecHash(c);
    const failedProbe = probes.shouldRestart(latest.id);
    if (latest.specHash === hash && failedProbe === undefined) {
      this.waitingOf(pod.metadata.uid).delete(c.name);
      return;
    }
    log.info(
      { container: c.name, reason: failedProbe ? `${failedProbe} probe failed` : 'spec changed' },
      'restarting container',
    );
    this.opts.statuses.recordEvent(
      killingEvent(
        pod,
        c.name,
        'app',
        failedProbe === undefined
          ? `Container ${c.name} definition changed, will be restarted`
          : `Container ${c.name} failed ${failedProbe} probe, will be restarted`,
      ),
    );
    probes.stopContainer(latest.id);
    await this.killOne(pass, c, latest, restartGrace(pod, c, failedProbe));
    if (latest.specHash !== hash) {
      wantRequeueFrom(
        await this.starter.start(pass, c, 'app', latest.attempt + 1),
        pass.wantRequeue,
      );
      return;
    }
    const stopped =
      (await runtime.listContainers({ podUid: pod.metadata.uid })).find(
        (x) => x.id === latest.id,
      ) ?? latest;
    if (pass.policy !== 'Never')
      wantRequeueFrom(await this.restartWithBackoff(pass, c, 'app', stopped), pass.wantRequeue);
  }

  private killOne(
    target: StartTarget,
    spec: Container | undefined,
    instance: RuntimeContainer,
    graceSeconds: number,
  ): Promise<void> {
    return this.killer.kill({
      pod: target.pod,
      spec,
      instance,
      graceSeconds,
      podIP: target.podIP,
    });
  }

  /**
   * Probes for the running app containers, then the status; a pod that has just finished stops what
   * is left of it.
   */
  private async finishPass(pass: SyncPass, host: string): Promise<void> {
    const { pod, sandboxId, log } = pass;
    const { runtime } = this.opts;
    let final = await runtime.listContainers({ podUid: pod.metadata.uid });
    const probed: { c: Container; kind: 'init' | 'app' }[] = [
      ...(pod.spec.initContainers ?? [])
        .filter(isSidecar)
        .map((c) => ({ c, kind: 'init' as const })),
      ...pod.spec.containers.map((c) => ({ c, kind: 'app' as const })),
    ];
    for (const { c, kind } of probed) {
      const [latest] = latestInstances(final, c.name, kind);
      if (latest?.state === 'running' && latest.sandboxId === sandboxId)
        this.opts.probes.ensure(pod, c, latest.id, host);
    }
    if (appContainersDone({ ...pass, live: final.filter((c) => c.sandboxId === sandboxId) })) {
      // every app container has finished for good: the sidecars go, last started first
      await this.stopSidecars(pass, final);
      final = await runtime.listContainers({ podUid: pod.metadata.uid });
    }
    const status = await this.publishStatus(pod, final);
    if (TERMINAL.has(status.phase)) {
      log.info({ phase: status.phase }, 'pod finished');
      await this.stopPodContainers(pod, final, false);
      await this.publishStatus(pod, await runtime.listContainers({ podUid: pod.metadata.uid }));
    }
  }

  private async stopSidecars(target: StartTarget, containers: RuntimeContainer[]): Promise<void> {
    const grace = target.pod.spec.terminationGracePeriodSeconds ?? 30;
    for (const ic of [...(target.pod.spec.initContainers ?? [])].reverse()) {
      if (!isSidecar(ic)) continue;
      for (const c of containers) {
        if (c.kind !== 'init' || c.name !== ic.name || c.state !== 'running') continue;
        this.opts.probes.stopContainer(c.id);
        await this.killOne(target, ic, c, grace);
      }
    }
  }

  private async restartWithBackoff(
    target: StartTarget,
    c: Container,
    kind: 'init' | 'app',
    latest: RuntimeContainer,
  ): Promise<SyncResult> {
    const { pod } = target;
    const key = `${pod.metadata.uid}/${c.name}`;
    const ran = (latest.finishedAtMs ?? 0) - (latest.startedAtMs ?? 0);
    if (latest.startedAtMs !== undefined && ran >= this.backoff.resetAfterRunMs)
      this.backoff.reset(key);
    const remaining = this.backoff.remainingMs(key);
    if (remaining > 0) {
      this.waitingOf(pod.metadata.uid).set(c.name, {
        reason: 'CrashLoopBackOff',
        message:
          `back-off ${Math.round(this.backoff.delayMs(key) / 1000)}s restarting failed ` +
          `container=${c.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(` +
          `${pod.metadata.uid})`,
      });
      return { requeueAfterMs: remaining };
    }
    this.backoff.next(key);
    return this.starter.start(target, c, kind, latest.attempt + 1);
  }

  /**
   * Stops every container of the pod (apps in parallel, with the grace period, then the init
   * containers and sidecars, last first), then the sandbox.
   */
  async stopPodContainers(
    pod: Pod,
    containers: RuntimeContainer[],
    removeSandbox: boolean,
    graceOverride?: number,
  ): Promise<void> {
    const { runtime, probes } = this.opts;
    probes.stopPod(pod.metadata.uid);
    const grace =
      graceOverride ??
      pod.metadata.deletionGracePeriodSeconds ??
      pod.spec.terminationGracePeriodSeconds ??
      30;
    const sandbox = containers
      .filter((c) => c.kind === 'sandbox')
      .sort((a, b) => b.attempt - a.attempt)[0];
    const target = {
      pod,
      podIP: pod.spec.hostNetwork ? (this.opts.hostIP ?? '127.0.0.1') : sandbox?.ip,
    };
    const running = containers.filter(
      (c) => c.kind !== 'sandbox' && (c.state === 'running' || c.state === 'created'),
    );
    const kill = (c: RuntimeContainer): Promise<void> => {
      if (c.kind !== 'sandbox') this.opts.statuses.recordEvent(killingEvent(pod, c.name, c.kind));
      return this.killer.kill({
        ...target,
        spec: specOf(pod, c),
        instance: c,
        graceSeconds: grace,
      });
    };
    // app and ephemeral containers together, as the reference's killContainersWithSyncResult
    await Promise.all(running.filter((c) => c.kind === 'app' || c.kind === 'ephemeral').map(kill));
    const inits = running
      .filter((c) => c.kind === 'init')
      .sort((a, b) => initIndex(pod, b.name) - initIndex(pod, a.name));
    for (const c of inits) await kill(c);
    for (const s of containers.filter((c) => c.kind === 'sandbox' && c.state === 'running'))
      await runtime.stopPodSandbox(s.id, grace);
    if (removeSandbox) {
      for (const c of containers.filter((x) => x.kind !== 'sandbox'))
        await runtime.removeContainer(c.id);
      // plugin volumes are unmounted before the sandbox (and with it the pod dir) is removed; a
      // failed unmount throws, so nothing under a mount is deleted, and the removal is retried
      await this.opts.volumes?.tearDown(pod);
      for (const s of containers.filter((c) => c.kind === 'sandbox'))
        await runtime.removePodSandbox(s.id);
    }
  }

  /** Terminates the pod and removes everything it left (containers, sandbox, pod directory). */
  async killPod(pod: Pod, graceOverride?: number): Promise<void> {
    const containers = await this.opts.runtime.listContainers({ podUid: pod.metadata.uid });
    await this.stopPodContainers(pod, containers, true, graceOverride);
    await this.opts.podCgroups?.remove(pod);
    await this.opts.podLogs?.removePod(pod.metadata.uid);
    this.forget(pod.metadata.uid, pod);
  }

  forget(uid: string, latest?: Pod): void {
    this.waiting.delete(uid);
    this.messages.forget(uid);
    this.backoff.forgetPrefix(`${uid}/`);
    this.imagePullBackoff.forgetPrefix(`${uid}/`);
    this.opts.statuses.delete(uid, latest);
  }
}

/** An init container with restartPolicy Always: a sidecar. */
export function isSidecar(c: Container): boolean {
  return c.restartPolicy === 'Always';
}

/** The spec an instance was made from (its preStop hook, its name in events). */
function specOf(pod: Pod, c: RuntimeContainer): Container | undefined {
  if (c.kind === 'ephemeral') {
    const ec = pod.spec.ephemeralContainers?.find((s) => s.name === c.name);
    return ec === undefined ? undefined : ephemeralCommon(ec);
  }
  const list = c.kind === 'app' ? pod.spec.containers : (pod.spec.initContainers ?? []);
  return list.find((s) => s.name === c.name);
}

function initIndex(pod: Pod, name: string): number {
  return (pod.spec.initContainers ?? []).findIndex((c) => c.name === name);
}

/**
 * Every app container has exited and will not be restarted (restartPolicy Never, or OnFailure
 * and all succeeded): the pod is done, whatever its sidecars do.
 */
function appContainersDone(pass: Pick<SyncPass, 'pod' | 'policy' | 'live'>): boolean {
  if (pass.policy === 'Always') return false;
  return pass.pod.spec.containers.every((c) => {
    const [latest] = latestInstances(pass.live, c.name, 'app');
    if (latest?.state !== 'exited') return false;
    return pass.policy === 'Never' || latest.exitCode === 0;
  });
}

/** Attempts keep counting across sandboxes, so restartCount survives a sandbox recreation. */
function nextAttempt(all: RuntimeContainer[], name: string, kind: 'init' | 'app'): number {
  const [latest] = latestInstances(all, name, kind);
  return latest === undefined ? 0 : latest.attempt + 1;
}

function wantRequeueFrom(r: SyncResult, want: (ms: number) => void): void {
  if (r.requeueAfterMs !== undefined) want(r.requeueAfterMs);
}
