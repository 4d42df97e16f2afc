// One pass of bringing a pod's containers to what its spec asks: sandbox, init containers in
// order, app containers with restart policy and crash-loop back-off, probes, then the status.
// The pod workers call it serially per pod, so it may assume nothing else touches the pod.
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import { joinUnder, mkdirUnder } from '../../common/util/safe-path.js';
import { canonicalJson, hashHex } from '../pod/hash.js';
import { restartPolicyOf, type Container, type Pod, type PodStatus } from '../pod/types.js';
import {
  ImagePullError,
  defaultPullPolicy,
  type ContainerRuntime,
  type ContainerMount,
  type ImageService,
  type RuntimeContainer,
} from '../runtime/types.js';
import { containerEnv } from '../pod/expand.js';
import { Backoff } from './backoff.js';
import { computePodStatus, latestInstances } from './pod-status.js';
import type { ProbeManager } from './probes.js';
import type { PodStatusManager } from './status-manager.js';

export interface PodSyncerOptions {
  runtime: ContainerRuntime;
  images: ImageService;
  probes: ProbeManager;
  statuses: PodStatusManager;
  clock: Clock;
  logger: Logger;
  rootDir: string;
  hostIP?: string;
  /** Crash-loop back-off; injected so tests can shorten it. */
  backoff?: Backoff;
  imagePullBackoff?: Backoff;
  /** --cgroups-per-qos: each pod's cgroup, made before its sandbox and removed after its containers. */
  podCgroups?: PodCgroupLifecycle;
  /** Volumes mounted by plugins (FlexVolume, --volume-plugin-dir): set up before the sandbox, torn down with the pod. */
  volumes?: PodVolumePlugins;
  /** podLogsDir: each started container's log linked where the reference puts it. */
  podLogs?: {
    link(
      pod: { namespace: string; name: string; uid: string },
      container: string,
      attempt: number,
      target: string | undefined,
    ): Promise<void>;
    removePod(uid: string): Promise<void>;
  };
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
  /** The container's mounts (subPath, read-only, propagation); throws a CreateContainerConfigError message. */
  containerMounts?(
    pod: Pod,
    c: Container,
    env: Readonly<Record<string, string>>,
  ): Promise<readonly ContainerMount[]>;
}

export interface SyncResult {
  /** Sync again after this long (a back-off expires, an image pull is retried). */
  requeueAfterMs?: number;
}

export function containerSpecHash(c: Container): string {
  return hashHex([canonicalJson(c)], 16);
}

const TERMINAL = new Set(['Succeeded', 'Failed']);

/** What one sync pass over a pod's containers shares once its sandbox runs. */
interface SyncPass {
  pod: Pod;
  log: Logger;
  sandboxId: string;
  policy: ReturnType<typeof restartPolicyOf>;
  /** Every container of the pod, listed after the sandbox check (attempt numbers count them all). */
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

  constructor(opts: PodSyncerOptions) {
    this.opts = opts;
    this.backoff = opts.backoff ?? new Backoff({ clock: opts.clock });
    this.imagePullBackoff = opts.imagePullBackoff ?? new Backoff({ clock: opts.clock });
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

  private publishStatus(pod: Pod, containers: RuntimeContainer[]): PodStatus {
    const { statuses, probes, runtime, clock } = this.opts;
    const previous = statuses.status(pod.metadata.uid);
    const status = computePodStatus({
      pod,
      containers,
      runtimeType: runtime.type,
      waiting: this.waitingOf(pod.metadata.uid),
      ready: (id) => probes.ready(id),
      nowIso: clock.now().toISOString(),
      ...(this.opts.hostIP !== undefined ? { hostIP: this.opts.hostIP } : {}),
      ...(previous !== undefined ? { previous } : {}),
    });
    statuses.set(pod, status);
    return status;
  }

  async syncPod(pod: Pod): Promise<SyncResult> {
    const { runtime, logger } = this.opts;
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

    await this.opts.podCgroups?.ensure(pod);
    await this.setUpVolumes(pod, listed);
    const { sandbox, containers } = await this.ensureSandbox(pod, listed, log);
    let requeue: number | undefined;
    const pass: SyncPass = {
      pod,
      log,
      sandboxId: sandbox.id,
      policy: restartPolicyOf(pod),
      containers,
      // containers of an older sandbox are stale: not considered further
      live: containers.filter((c) => c.kind !== 'sandbox' && c.sandboxId === sandbox.id),
      wantRequeue: (ms) => {
        requeue = requeue === undefined ? ms : Math.min(requeue, ms);
      },
    };
    // init containers, in order; app containers start only after all of them succeeded
    if (await this.syncInitContainers(pass)) {
      for (const c of pod.spec.containers) await this.syncAppContainer(pass, c);
    }
    const host = pod.spec.hostNetwork ? '127.0.0.1' : (sandbox.ip ?? '127.0.0.1');
    await this.finishPass(pod, sandbox.id, host, log);
    return requeue === undefined ? {} : { requeueAfterMs: requeue };
  }

  /** The pod's volumes, set up or refreshed; while one never could be, the pod's status says its containers wait. */
  private async setUpVolumes(pod: Pod, listed: RuntimeContainer[]): Promise<void> {
    try {
      await this.opts.volumes?.setUp(pod);
    } catch (err) {
      this.publishStatus(pod, listed);
      throw err;
    }
  }

  /** The pod's running sandbox, made (after its volumes) when there is none or it stopped; with the containers listed after. */
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
    await runtime.runPodSandbox({ pod, attempt });
    const listed = await runtime.listContainers({ podUid: pod.metadata.uid });
    const sandbox = listed
      .filter((c) => c.kind === 'sandbox' && c.state === 'running')
      .sort((a, b) => b.attempt - a.attempt)[0];
    if (sandbox === undefined) throw new Error('pod sandbox did not start');
    return { sandbox, containers: listed };
  }

  /** Runs the first init container that has not succeeded yet; true when all of them have (or an app container already ran). */
  private async syncInitContainers(pass: SyncPass): Promise<boolean> {
    const { pod, log, sandboxId } = pass;
    if (pass.live.some((c) => c.kind === 'app')) return true;
    for (const ic of pod.spec.initContainers ?? []) {
      const [latest] = latestInstances(pass.live, ic.name, 'init');
      if (latest?.state === 'exited' && latest.exitCode === 0) continue;
      if (latest?.state === 'running') return false;
      if (latest === undefined) {
        wantRequeueFrom(
          await this.startContainer(
            pod,
            ic,
            'init',
            nextAttempt(pass.containers, ic.name, 'init'),
            sandboxId,
            log,
          ),
          pass.wantRequeue,
        );
      } else if (pass.policy === 'Never') {
        log.info(
          { container: ic.name, exitCode: latest.exitCode },
          'init container failed and restartPolicy is Never: pod failed',
        );
      } else {
        wantRequeueFrom(
          await this.restartWithBackoff(pod, ic, 'init', latest, sandboxId, log),
          pass.wantRequeue,
        );
      }
      return false;
    }
    return true;
  }

  /** Starts an app container that never ran, restarts an exited one by the restart policy. */
  private async syncAppContainer(pass: SyncPass, c: Container): Promise<void> {
    const { pod, log, sandboxId } = pass;
    const [latest] = latestInstances(pass.live, c.name, 'app');
    if (latest === undefined) {
      wantRequeueFrom(
        await this.startContainer(
          pod,
          c,
          'app',
          nextAttempt(pass.containers, c.name, 'app'),
          sandboxId,
          log,
        ),
        pass.wantRequeue,
      );
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
    wantRequeueFrom(
      await this.restartWithBackoff(pod, c, 'app', latest, sandboxId, log),
      pass.wantRequeue,
    );
  }

  /** A running container is replaced when its spec changed, and restarted (by the policy, with back-off) when a probe failed. */
  private async syncRunningContainer(
    pass: SyncPass,
    c: Container,
    latest: RuntimeContainer,
  ): Promise<void> {
    const { pod, log, sandboxId } = pass;
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
    probes.stopContainer(latest.id);
    await runtime.stopContainer(latest.id, pod.spec.terminationGracePeriodSeconds ?? 30);
    if (latest.specHash !== hash) {
      wantRequeueFrom(
        await this.startContainer(pod, c, 'app', latest.attempt + 1, sandboxId, log),
        pass.wantRequeue,
      );
      return;
    }
    const stopped =
      (await runtime.listContainers({ podUid: pod.metadata.uid })).find(
        (x) => x.id === latest.id,
      ) ?? latest;
    if (pass.policy !== 'Never')
      wantRequeueFrom(
        await this.restartWithBackoff(pod, c, 'app', stopped, sandboxId, log),
        pass.wantRequeue,
      );
  }

  /** Probes for the running app containers, then the status; a pod that has just finished stops what is left of it. */
  private async finishPass(pod: Pod, sandboxId: string, host: string, log: Logger): Promise<void> {
    const { runtime } = this.opts;
    const final = await runtime.listContainers({ podUid: pod.metadata.uid });
    for (const c of pod.spec.containers) {
      const [latest] = latestInstances(final, c.name, 'app');
      if (latest?.state === 'running' && latest.sandboxId === sandboxId)
        this.opts.probes.ensure(pod, c, latest.id, host);
    }
    const status = this.publishStatus(pod, final);
    if (TERMINAL.has(status.phase)) {
      log.info({ phase: status.phase }, 'pod finished');
      await this.stopPodContainers(pod, final, false);
      this.publishStatus(pod, await runtime.listContainers({ podUid: pod.metadata.uid }));
    }
  }

  private async restartWithBackoff(
    pod: Pod,
    c: Container,
    kind: 'init' | 'app',
    latest: RuntimeContainer,
    sandboxId: string,
    log: Logger,
  ): Promise<SyncResult> {
    const key = `${pod.metadata.uid}/${c.name}`;
    const ran = (latest.finishedAtMs ?? 0) - (latest.startedAtMs ?? 0);
    if (latest.startedAtMs !== undefined && ran >= this.backoff.resetAfterRunMs)
      this.backoff.reset(key);
    const remaining = this.backoff.remainingMs(key);
    if (remaining > 0) {
      this.waitingOf(pod.metadata.uid).set(c.name, {
        reason: 'CrashLoopBackOff',
        message: `back-off ${Math.round(this.backoff.delayMs(key) / 1000)}s restarting failed container=${c.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
      });
      return { requeueAfterMs: remaining };
    }
    this.backoff.next(key);
    return this.startContainer(pod, c, kind, latest.attempt + 1, sandboxId, log);
  }

  private async startContainer(
    pod: Pod,
    c: Container,
    kind: 'init' | 'app',
    attempt: number,
    sandboxId: string,
    log: Logger,
  ): Promise<SyncResult> {
    const { runtime } = this.opts;
    const waiting = this.waitingOf(pod.metadata.uid);
    const pulled = await this.pullImage(pod, c, log);
    if (pulled !== undefined) return pulled;
    const mounts = await this.mountsOf(pod, c, log);
    if (mounts === 'failed')
      return { requeueAfterMs: this.backoff.delayMs(`${pod.metadata.uid}/${c.name}`) };
    let id: string;
    try {
      id = await runtime.createContainer({
        pod,
        container: c,
        kind,
        attempt,
        specHash: containerSpecHash(c),
        sandboxId,
        volumePaths: this.volumePaths(pod),
        ...(mounts !== undefined ? { mounts } : {}),
      });
    } catch (err) {
      waiting.set(c.name, { reason: 'CreateContainerError', message: userMessage(err) });
      log.warn({ container: c.name, err: userMessage(err) }, 'could not create container');
      this.backoff.next(`${pod.metadata.uid}/${c.name}`);
      return { requeueAfterMs: this.backoff.remainingMs(`${pod.metadata.uid}/${c.name}`) };
    }
    try {
      await runtime.startContainer(id);
      waiting.delete(c.name);
      log.info({ container: c.name, attempt, id }, 'container started');
      await this.opts.podLogs?.link(
        pod.metadata,
        c.name,
        attempt,
        await runtime.hostLogFile?.(id).catch(() => undefined),
      );
    } catch (err) {
      waiting.set(c.name, { reason: 'RunContainerError', message: userMessage(err) });
      log.warn({ container: c.name, err: userMessage(err) }, 'could not start container');
      this.backoff.next(`${pod.metadata.uid}/${c.name}`);
      return { requeueAfterMs: this.backoff.remainingMs(`${pod.metadata.uid}/${c.name}`) };
    }
    return {};
  }

  /** Pulls the container's image by its policy (with back-off); a result when the container must wait. */
  private async pullImage(pod: Pod, c: Container, log: Logger): Promise<SyncResult | undefined> {
    const { runtime, images } = this.opts;
    const waiting = this.waitingOf(pod.metadata.uid);
    if (c.image !== undefined && c.image !== '' && runtime.type !== 'process') {
      const pullKey = `${pod.metadata.uid}/${c.name}/${c.image}`;
      const remaining = this.imagePullBackoff.remainingMs(pullKey);
      if (remaining > 0) {
        waiting.set(c.name, {
          reason: 'ImagePullBackOff',
          message: `Back-off pulling image "${c.image}"`,
        });
        return { requeueAfterMs: remaining };
      }
      try {
        await images.ensureImage(c.image, c.imagePullPolicy ?? defaultPullPolicy(c.image));
        this.imagePullBackoff.reset(pullKey);
      } catch (err) {
        const reason = err instanceof ImagePullError ? err.reason : 'ErrImagePull';
        this.imagePullBackoff.next(pullKey);
        waiting.set(c.name, { reason, message: userMessage(err) });
        log.warn(
          { container: c.name, image: c.image, reason, err: userMessage(err) },
          'image not available; retrying with back-off',
        );
        return { requeueAfterMs: this.imagePullBackoff.remainingMs(pullKey) };
      }
    }
    return undefined;
  }

  /** The container's mounts from the volume manager; 'failed' (the container waits with CreateContainerConfigError) when they cannot be made. */
  private async mountsOf(
    pod: Pod,
    c: Container,
    log: Logger,
  ): Promise<readonly ContainerMount[] | undefined | 'failed'> {
    try {
      return await this.opts.volumes?.containerMounts?.(pod, c, containerEnv(c));
    } catch (err) {
      this.waitingOf(pod.metadata.uid).set(c.name, {
        reason: 'CreateContainerConfigError',
        message: userMessage(err),
      });
      log.warn({ container: c.name, err: userMessage(err) }, 'could not make container mounts');
      return 'failed';
    }
  }

  /** Stops every container of the pod (apps in parallel, with the grace period), then the sandbox. */
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
    const running = containers.filter(
      (c) => c.kind !== 'sandbox' && (c.state === 'running' || c.state === 'created'),
    );
    await Promise.all(
      running.filter((c) => c.kind === 'app').map((c) => runtime.stopContainer(c.id, grace)),
    );
    await Promise.all(
      running.filter((c) => c.kind === 'init').map((c) => runtime.stopContainer(c.id, grace)),
    );
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
    this.backoff.forgetPrefix(`${uid}/`);
    this.imagePullBackoff.forgetPrefix(`${uid}/`);
    this.opts.statuses.delete(uid, latest);
  }
}

/** Attempts keep counting across sandboxes, so restartCount survives a sandbox recreation. */
function nextAttempt(all: RuntimeContainer[], name: string, kind: 'init' | 'app'): number {
  const [latest] = latestInstances(all, name, kind);
  return latest === undefined ? 0 : latest.attempt + 1;
}

function wantRequeueFrom(r: SyncResult, want: (ms: number) => void): void {
  if (r.requeueAfterMs !== undefined) want(r.requeueAfterMs);
}
