// Docker's own cgroup driver must be the agent's: with different drivers the pod cgroups and
// the containers' would sit in different trees. The reference (dockershim) refused to start.
import type { Logger } from '../../common/log/types.js';
import { NodeAgentError } from '../../common/util/errors.js';
import { driverMismatchMessage } from './setup.js';

interface DockerInfoSource {
  readonly docker: { info(): Promise<unknown> };
}

function hasDockerInfo(rt: unknown): rt is DockerInfoSource {
  if (typeof rt !== 'object' || rt === null || !('docker' in rt)) return false;
  const d = rt.docker;
  return typeof d === 'object' && d !== null && 'info' in d && typeof d.info === 'function';
}

export class CgroupDriverMismatchError extends NodeAgentError {
  constructor(message: string) {
    super('Config', message);
  }
}

/**
 * Refuses a Docker engine whose CgroupDriver differs from --cgroup-driver; says so when it cannot
 * tell.
 */
export async function checkDockerCgroupDriver(
  rt: { readonly type: string },
  ours: string,
  agentWord: string,
  logger: Logger,
): Promise<void> {
  if (rt.type !== 'docker' || !hasDockerInfo(rt)) return;
  let driver: string | undefined;
  try {
    const info = await rt.docker.info();
    driver =
      typeof info === 'object' &&
      info !== null &&
      'CgroupDriver' in info &&
      typeof info.CgroupDriver === 'string'
        ? info.CgroupDriver
        : undefined;
  } catch (err) {
    logger.warn(
      { err: err instanceof Error ? err.message : String(err) },
      "could not read the Docker engine's cgroup driver (docker info); --cgroup-driver " +
        'is not checked against it',
    );
    return;
  }
  if (driver === undefined || driver === '') {
    logger.warn(
      {},
      'the Docker engine does not report its cgroup driver; --cgroup-driver is not ' +
        'checked against it',
    );
    return;
  }
  if (driver !== ours)
    throw new CgroupDriverMismatchError(driverMismatchMessage(agentWord, ours, driver));
  logger.info({ cgroupDriver: driver }, "the Docker engine uses the agent's cgroup driver");
}
