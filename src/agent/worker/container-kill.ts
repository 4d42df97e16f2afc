// Stopping one container as the reference's killContainer does: its preStop hook first (when
// there is grace time left), within the grace period; then the stop signal with what is left of
// the grace period, never less than 2 seconds, so a container always has a moment to exit.
import { afterMs, type Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import type { Container, Pod } from '../pod/types.js';
import type { ContainerKind, ContainerRuntime, RuntimeContainer } from '../runtime/types.js';
import { runLifecycleHook } from './lifecycle-hooks.js';
import type { PodEvent } from './status-manager.js';

/** The reference's minimumGracePeriodInSeconds. */
export const MINIMUM_GRACE_PERIOD_SECONDS = 2;

export interface ContainerKillerOptions {
  runtime: ContainerRuntime;
  clock: Clock;
  logger: Logger;
  recordEvent: (e: PodEvent) => void;
}

export interface KillRequest {
  pod: Pod;
  /** The container's spec, when the pod still has it (its preStop hook runs). */
  spec: Container | undefined;
  instance: RuntimeContainer;
  graceSeconds: number;
  /** The pod's IP, where an httpGet hook without a host goes. */
  podIP: string | undefined;
}

const SPEC_LISTS = { app: 'containers', init: 'initContainers', ephemeral: 'ephemeralContainers' };

/** The field path of a container's events: the pod spec list it is in, and its name. */
export function containerFieldPath(
  name: string,
  kind: Exclude<ContainerKind, 'sandbox'> = 'app',
): string {
  return `spec.${SPEC_LISTS[kind]}{${name}}`;
}

/**
 * The reference's Killing event as a kill begins, on the container: `Stopping container <name>`,
 * or the restart's own message.
 */
export function killingEvent(
  pod: Pod,
  name: string,
  kind: Exclude<ContainerKind, 'sandbox'>,
  message = `Stopping container ${name}`,
): PodEvent {
  return {
    pod,
    fieldPath: containerFieldPath(name, kind),
    type: 'Normal',
    reason: 'Killing',
    message,
  };
}

export class ContainerKiller {
  private readonly opts: ContainerKillerOptions;

  constructor(opts: ContainerKillerOptions) {
    this.opts = opts;
  }

  /** Runs the preStop hook (bounded by the grace period) and gives back the seconds it took. */
  private async preStop(req: KillRequest, hook: NonNullable<Container['lifecycle']>['preStop']) {
    const { clock, runtime, logger } = this.opts;
    const { pod, spec, instance } = req;
    if (hook === undefined || spec === undefined) return 0;
    const started = clock.nowMs();
    const ac = new AbortController();
    const graceMs = req.graceSeconds * 1000;
    const cancel = afterMs(clock, graceMs, () => ac.abort());
    const run = runLifecycleHook(hook, {
      runtime,
      clock,
      pod,
      container: spec,
      containerId: instance.id,
      podIP: req.podIP,
      signal: ac.signal,
      execTimeoutMs: graceMs,
      warn: (reason, message) => this.opts.recordEvent({ pod, type: 'Warning', reason, message }),
    }).then((failure) => {
      // a hook the grace period cut short is not a failed hook (the reference stops waiting)
      if (failure === undefined || ac.signal.aborted) return;
      logger.warn({ container: spec.name, err: failure }, 'PreStop hook failed');
      // the message may hold secrets: it stays in the log
      this.opts.recordEvent({
        pod,
        fieldPath: containerFieldPath(spec.name),
        type: 'Warning',
        reason: 'FailedPreStopHook',
        message: 'PreStopHook failed',
      });
    });
    await Promise.race([
      run,
      new Promise<void>((resolve) => ac.signal.addEventListener('abort', () => resolve())),
    ]);
    cancel();
    if (ac.signal.aborted)
      logger.info(
        { container: spec.name, graceSeconds: req.graceSeconds },
        'PreStop hook not completed in grace period',
      );
    return Math.floor((clock.nowMs() - started) / 1000);
  }

  async kill(req: KillRequest): Promise<void> {
    let grace = req.graceSeconds;
    const hook = req.spec?.lifecycle?.preStop;
    if (hook !== undefined && grace > 0 && req.instance.state === 'running')
      grace -= await this.preStop(req, hook);
    grace = Math.max(grace, MINIMUM_GRACE_PERIOD_SECONDS);
    await this.opts.runtime.stopContainer(req.instance.id, grace);
  }
}
