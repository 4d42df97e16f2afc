// Starting one container as the reference's startContainer does: the image (image-pull.ts, with
// its pull back-off and events), the termination message file, create, start, the log link, then
// the postStart hook; a failure at any step is the container's waiting reason and a crash-loop
// back-off.
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import { canonicalJson, hashHex } from '../pod/hash.js';
import type { Container, Pod } from '../pod/types.js';
import {
  plainEnvironment,
  type ContainerEnvironment,
  type ResolveEnvironment,
} from '../pod/expand.js';
import {
  ContainerConfigError,
  runtimeWords,
  type ContainerConfig,
  type ContainerMount,
  type ContainerRuntime,
  type ImageService,
} from '../runtime/types.js';
import { WORKER_RETRY_MS, type Backoff } from './backoff.js';
import { containerFieldPath, type ContainerKiller } from './container-kill.js';
import { ImagePuller } from './image-pull.js';
import { runLifecycleHook } from './lifecycle-hooks.js';
import type { PodEvent } from './status-manager.js';
import { prepareTerminationMessageFile } from './termination-message.js';
import type { PullCredentials } from './pull-credentials.js';

export interface SyncResult {
  /** Sync again after this long (a back-off expires, an image pull is retried). */
  requeueAfterMs?: number;
}

export function containerSpecHash(c: Container): string {
  return hashHex([canonicalJson(c)], 16);
}

/** Where a container starts: its pod, the pod's sandbox and IP. */
export interface StartTarget {
  pod: Pod;
  log: Logger;
  sandboxId: string;
  /** The pod's IP (the host's for hostNetwork): where httpGet hooks without a host go. */
  podIP: string | undefined;
  /** Aborted when the pod is to be killed: a postStart hook in flight gives up. */
  signal: AbortSignal;
}

/** podLogsDir: each started container's log linked where the reference puts it. */
export interface PodLogLinker {
  link(
    pod: { namespace: string; name: string; uid: string },
    container: string,
    attempt: number,
    target: string | undefined,
  ): Promise<void>;
  removePod(uid: string): Promise<void>;
}

export interface ContainerStarterOptions {
  runtime: ContainerRuntime;
  images: ImageService;
  clock: Clock;
  rootDir: string;
  backoff: Backoff;
  imagePullBackoff: Backoff;
  killer: ContainerKiller;
  podLogs?: PodLogLinker;
  recordEvent: (e: PodEvent) => void;
  /**
   * The pod's waiting reasons by container name (the status shows them until the container runs).
   */
  waitingOf: (uid: string) => Map<string, { reason: string; message?: string }>;
  volumePaths: (pod: Pod) => Record<string, string>;
  /**
   * The container's mounts from the volume manager (subPath, read-only, propagation); throws why
   * not.
   */
  containerMounts?: (
    pod: Pod,
    c: Container,
    env: Readonly<Record<string, string>>,
  ) => Promise<readonly ContainerMount[] | undefined>;
  /**
   * The container's environment, command and args (src/agent/env); throws the reference's message.
   */
  environment?: ResolveEnvironment;
  /** The pod's image pull secrets as credentials for an image (pull-credentials.ts). */
  pullCredentials?: PullCredentials;
}

/** How long a postStart exec hook may run: the reference sets none; a kill interrupts it sooner. */
const POST_START_EXEC_LIMIT_MS = 24 * 3600 * 1000;

export class ContainerStarter {
  private readonly opts: ContainerStarterOptions;
  private readonly puller: ImagePuller;

  constructor(opts: ContainerStarterOptions) {
    this.opts = opts;
    this.puller = new ImagePuller(opts);
  }

  /** A waiting reason and the crash-loop back-off for a container that could not be made or run. */
  failStart(target: StartTarget, c: Container, reason: string, err: unknown): SyncResult {
    const key = `${target.pod.metadata.uid}/${c.name}`;
    const message = typeof err === 'string' ? err : runtimeWords(err);
    this.opts.waitingOf(target.pod.metadata.uid).set(c.name, { reason, message });
    target.log.warn({ container: c.name, reason, err: message }, 'could not start container');
    this.opts.backoff.next(key);
    return { requeueAfterMs: this.opts.backoff.remainingMs(key) };
  }

  /**
   * CreateContainerConfigError (the environment or the mounts could not be made): the waiting
   * reason and message, and another try after the reference's pod worker back-off; no crash-loop
   * back-off, since nothing ran.
   */
  private failConfig(target: StartTarget, c: Container, err: unknown): SyncResult {
    const message = userMessage(err);
    this.opts.waitingOf(target.pod.metadata.uid).set(c.name, {
      reason: 'CreateContainerConfigError',
      message,
    });
    target.log.warn(
      { container: c.name, reason: 'CreateContainerConfigError', err: message },
      'could not make the container config',
    );
    return { requeueAfterMs: WORKER_RETRY_MS };
  }

  async start(
    target: StartTarget,
    c: Container,
    kind: ContainerConfig['kind'],
    attempt: number,
    targetContainerId?: string,
  ): Promise<SyncResult> {
    const { runtime } = this.opts;
    const { pod, log } = target;
    const pulled = runtime.type === 'process' ? undefined : await this.puller.pull(target, c, kind);
    if (pulled !== undefined) return pulled;
    let environment: ContainerEnvironment;
    let mounts: readonly ContainerMount[] | undefined;
    try {
      environment = (await this.opts.environment?.(pod, c, target.podIP)) ?? plainEnvironment(c);
      const env = Object.fromEntries(environment.env.map((e) => [e.name, e.value] as const));
      mounts = await this.opts.containerMounts?.(pod, c, env);
    } catch (err) {
      return this.failConfig(target, c, err);
    }
    let id: string;
    try {
      const terminationMessageFile = await prepareTerminationMessageFile(this.opts.rootDir, pod, c);
      id = await runtime.createContainer({
        pod,
        container: c,
        kind,
        attempt,
        specHash: containerSpecHash(c),
        sandboxId: target.sandboxId,
        volumePaths: this.opts.volumePaths(pod),
        ...(mounts !== undefined ? { mounts } : {}),
        environment,
        ...(terminationMessageFile !== undefined ? { terminationMessageFile } : {}),
        ...(targetContainerId !== undefined ? { targetContainerId } : {}),
      });
    } catch (err) {
      const reason =
        err instanceof ContainerConfigError ? 'CreateContainerConfigError' : 'CreateContainerError';
      return this.failStart(target, c, reason, err);
    }
    try {
      await runtime.startContainer(id);
      log.info({ container: c.name, attempt, id }, 'container started');
      await this.opts.podLogs?.link(
        pod.metadata,
        c.name,
        attempt,
        await runtime.hostLogFile?.(id).catch(() => undefined),
      );
    } catch (err) {
      return this.failStart(target, c, 'RunContainerError', err);
    }
    const hookFailure = await this.postStart(target, c, id);
    if (hookFailure !== undefined)
      return this.failStart(target, c, 'PostStartHookError', hookFailure);
    this.opts.waitingOf(pod.metadata.uid).delete(c.name);
    return {};
  }

  /**
   * The postStart hook, right after the start: the container is not reported running before it
   * returns; when it fails, the container is killed (its preStop hook runs) and the failure
   * message is the container's waiting message.
   */
  private async postStart(
    target: StartTarget,
    c: Container,
    id: string,
  ): Promise<string | undefined> {
    const hook = c.lifecycle?.postStart;
    if (hook === undefined) return undefined;
    const { pod, log } = target;
    const grace =
      pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
    const failure = await runLifecycleHook(hook, {
      runtime: this.opts.runtime,
      clock: this.opts.clock,
      pod,
      container: c,
      containerId: id,
      podIP: target.podIP,
      signal: target.signal,
      execTimeoutMs: POST_START_EXEC_LIMIT_MS,
      warn: (reason, message) => this.opts.recordEvent({ pod, type: 'Warning', reason, message }),
    });
    if (failure === undefined) return undefined;
    log.warn({ container: c.name, err: failure }, 'Failed to execute PostStartHook');
    const fieldPath = containerFieldPath(c.name);
    // the message may hold secrets: the event says only that the hook failed
    this.opts.recordEvent({
      pod,
      fieldPath,
      type: 'Warning',
      reason: 'FailedPostStartHook',
      message: 'PostStartHook failed',
    });
    this.opts.recordEvent({
      pod,
      fieldPath,
      type: 'Normal',
      reason: 'Killing',
      message: 'FailedPostStartHook',
    });
    const instance = (await this.opts.runtime.listContainers({ podUid: pod.metadata.uid })).find(
      (x) => x.id === id,
    );
    if (instance !== undefined)
      await this.opts.killer.kill({
        pod,
        spec: c,
        instance,
        graceSeconds: grace,
        podIP: target.podIP,
      });
    return failure;
  }
}
