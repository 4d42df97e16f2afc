// Docker's HostConfig.CgroupParent: every container of a pod, its sandbox too, in the pod's
// cgroup (--cgroups-per-qos), as the reference's runtime is told for each pod sandbox.
import type { ContainerCreateOptions } from 'dockerode';
import type { Pod } from '../../pod/types.js';
import type { PodRuntimeSettings } from './container-settings.js';

export function withCgroupParent(
  o: ContainerCreateOptions,
  pod: Pod,
  s: PodRuntimeSettings | undefined,
): ContainerCreateOptions {
  if (s?.cgroups === undefined) return o;
  return { ...o, HostConfig: { ...o.HostConfig, CgroupParent: s.cgroups.dockerParent(pod) } };
}
