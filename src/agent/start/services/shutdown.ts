// Graceful node shutdown (shutdownGracePeriod, shutdownGracePeriodCriticalPods,
// shutdownGracePeriodByPodPriority): the node shutdown manager over systemd-logind on the
// system bus (DBUS_SYSTEM_BUS_ADDRESS, else /var/run/dbus/system_bus_socket), as the reference.
// Without a grace period it is off, as the reference says; where it cannot start (no system bus,
// no logind, no file descriptor passing) the agent says so once and the node shuts down without
// waiting for its pods.
import { Gauge } from 'prom-client';
import { userMessage } from '../../../common/util/errors.js';
import { durationMs } from '../../config/duration-field.js';
import type { EventRecorder } from '../../node/events/recorder.js';
import { shutdownGroups, type PriorityGracePeriod } from '../../node/shutdown/groups.js';
import type { Logger } from '../../../common/log/types.js';
import { DEFAULT_SYSTEM_BUS, DbusLogind, unixFdProblem } from '../../node/shutdown/logind.js';
import {
  LOGIND_CONFIG_DIRECTORY,
  overrideInhibitDelay,
  type LogindDropin,
} from '../../node/shutdown/logind-dropin.js';
import { NodeShutdownManager } from '../../node/shutdown/manager.js';
import { RuntimeShutdownPods } from '../../node/shutdown/pod-terminator.js';
import { ShutdownStateFile } from '../../node/shutdown/state.js';
import type { ServicesContext } from './context.js';
import { nodeReference } from './events.js';

export interface ShutdownEnvironment {
  /** The bus address (the environment's DBUS_SYSTEM_BUS_ADDRESS). */
  busAddress?: string | undefined;
  /** logind's drop-in directory (tests give a temporary one). */
  logindConfDir?: string;
}

/** The lock's who and why, and the drop-in's name, for the naming profile's agent. */
function identity(
  ctx: ServicesContext,
  dir: string,
): { who: string; why: string; dropin: LogindDropin } {
  const agent = ctx.names.agentEventComponent;
  const title = agent === 'kubelet' ? 'Kubelet' : agent;
  return {
    who: agent,
    why: `${title} needs time to handle node shutdown`,
    dropin: { dir, agent, title },
  };
}

/** The reference's graceful_shutdown_{start,end}_time_seconds gauges, under the agent's prefix. */
function shutdownGauges(ctx: ServicesContext): { start(s: number): void; end(s: number): void } {
  const registers = [ctx.metrics.registry];
  const start = new Gauge({
    name: 'nodeagent_graceful_shutdown_start_time_seconds',
    help: 'Last graceful shutdown start time since unix epoch in seconds',
    registers,
  });
  const end = new Gauge({
    name: 'nodeagent_graceful_shutdown_end_time_seconds',
    help: 'Last graceful shutdown end time since unix epoch in seconds',
    registers,
  });
  return { start: (s) => start.set(s), end: (s) => end.set(s) };
}

/** The priority groups and their grace periods; empty when no grace period is configured. */
function configuredGroups(ctx: ServicesContext): PriorityGracePeriod[] {
  const { config } = ctx;
  return shutdownGroups(
    config.shutdownGracePeriodByPodPriority,
    durationMs(config.shutdownGracePeriod, 'shutdownGracePeriod', 'shutdownGracePeriod'),
    durationMs(
      config.shutdownGracePeriodCriticalPods,
      'shutdownGracePeriodCriticalPods',
      'shutdownGracePeriodCriticalPods',
    ),
  );
}

/**
 * Whether the host can inhibit shutdown (logind passes the inhibitor lock as a file descriptor).
 */
function canInhibit(logger: Logger): boolean {
  const fdProblem = unixFdProblem();
  if (fdProblem === undefined) return true;
  logger.warn(
    {
      fields: [
        'shutdownGracePeriod',
        'shutdownGracePeriodCriticalPods',
        'shutdownGracePeriodByPodPriority',
      ],
    },
    `graceful node shutdown cannot take effect: ${fdProblem}; the node shuts down ` +
      `without waiting for its pods`,
  );
  return false;
}

function shutdownManager(
  ctx: ServicesContext,
  recorder: EventRecorder,
  o: { groups: PriorityGracePeriod[]; address: string; logindConfDir: string; logger: Logger },
): NodeShutdownManager {
  const { agent, clock } = ctx;
  const { address, logger } = o;
  const id = identity(ctx, o.logindConfDir);
  return new NodeShutdownManager({
    groups: o.groups,
    connect: () => DbusLogind.connect({ address, who: id.who, why: id.why, clock, logger }),
    overrideInhibitDelay: (ms) => overrideInhibitDelay(id.dropin, ms),
    pods: new RuntimeShutdownPods({
      pods: agent.pods,
      statuses: agent.statuses,
      runtime: agent.runtime.runtime,
      disruptionReason:
        ctx.names.profile === 'kubernetes' ? 'TerminationByKubelet' : 'TerminationByPlatlet',
      nowIso: () => clock.now().toISOString(),
    }),
    event: (message) =>
      recorder.event(nodeReference(ctx.nodeName), 'Normal', 'NodeShutdown', message),
    state: new ShutdownStateFile(ctx.flags.rootDir),
    times: shutdownGauges(ctx),
    clock,
    logger,
  });
}

/** Starts the manager when a grace period is configured; undefined when off or impossible. */
export function startShutdown(
  ctx: ServicesContext,
  recorder: EventRecorder,
  env: ShutdownEnvironment = { busAddress: process.env['DBUS_SYSTEM_BUS_ADDRESS'] },
): NodeShutdownManager | undefined {
  const { agent, signal } = ctx;
  const logger = ctx.logger.child({ part: 'nodeshutdown' });
  const groups = configuredGroups(ctx);
  if (groups.length === 0) {
    logger.info({}, 'No graceful configuration specified, node shutdown will be immediate');
    return undefined;
  }
  if (!canInhibit(logger)) return undefined;
  const address =
    env.busAddress !== undefined && env.busAddress !== '' ? env.busAddress : DEFAULT_SYSTEM_BUS;
  const logindConfDir = env.logindConfDir ?? LOGIND_CONFIG_DIRECTORY;
  const manager = shutdownManager(ctx, recorder, { groups, address, logindConfDir, logger });
  agent.pods.addAdmitHandler(() => manager.admit());
  logger.info({ groups }, 'Creating node shutdown manager');
  ctx.loops.push(
    manager.start(signal).catch((err: unknown) => {
      if (!signal.aborted)
        logger.error(
          { err: userMessage(err), busAddress: address },
          `Failed to start node shutdown manager: ${userMessage(err)}; graceful node ` +
            `shutdown cannot take effect, the node shuts down without waiting for its pods`,
        );
    }),
  );
  ctx.stops.push(async () => {
    await manager.idle();
    manager.stop();
  });
  return manager;
}
