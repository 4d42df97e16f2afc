// How long a container killed for a restart gets to stop.
import type { Container, Pod } from '../pod/types.js';
import type { ProbeKind } from './probes.js';

/**
 * The grace period of a restart: a pending deletion's, else the failed liveness or startup probe's
 * own terminationGracePeriodSeconds when set, else the pod's (the reference's
 * setTerminationGracePeriod).
 */
export function restartGrace(pod: Pod, c: Container, failedProbe: ProbeKind | undefined): number {
  if (pod.metadata.deletionGracePeriodSeconds !== undefined)
    return pod.metadata.deletionGracePeriodSeconds;
  const probe =
    failedProbe === 'startup'
      ? c.startupProbe
      : failedProbe === 'liveness'
        ? c.livenessProbe
        : undefined;
  return probe?.terminationGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
}
