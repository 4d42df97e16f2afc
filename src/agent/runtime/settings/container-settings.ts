// What the flags add to every container the runtimes create: CPU shares, CFS quota and period,
// the pids limit and the QoS oom_score_adj (the security context: runtime/security/).
import { totalmem } from 'node:os';
import type { Container, Pod } from '../../pod/types.js';
import type { PodCgroupPlacement } from '../../cgroups/pod-cgroups.js';
import { containerCpuResources, type CpuSettings } from './cpu.js';
import { containerOomScoreAdj } from './qos.js';
import type { SwapSettings } from './swap.js';

export interface ContainerSettings {
  cpu: CpuSettings;
  /** --pod-max-pids; -1 (or 0) is no limit. Applied per container until pod cgroups exist. */
  podPidsLimit: number;
  /** --seccomp-default */
  seccompDefault: boolean;
  /**
   * Where Localhost seccomp profiles are: <root-dir>/seccomp. Default /var/lib/nodeagent/seccomp.
   */
  seccompProfileRoot?: string;
  /**
   * The host's /sys/devices/system/cpu/cpu<N>/thermal_throttle paths (masked for procMount
   * Default).
   */
  thermalThrottlePaths?: readonly string[];
  /** The node's memory in bytes (the Burstable oom_score_adj formula). */
  memoryCapacity: number;
  /** The host's huge page sizes in bytes (a CRI container's hugetlb limits); none when absent. */
  hugePageSizes?: readonly number[];
  /**
   * Lowest oom_score_adj the host lets containers have: 0 without CAP_SYS_RESOURCE (said at start).
   */
  oomScoreAdjFloor?: number;
  /** memorySwap.swapBehavior (Docker MemorySwap); absent: Docker's own default. */
  swap?: SwapSettings;
  /** The CPU and memory managers' cpuset of a container (src/agent/cm). */
  cpuset?: (pod: Pod, c: Container) => { CpusetCpus?: string; CpusetMems?: string };
}

export interface DockerContainerSettings {
  CpuShares: number;
  CpuQuota?: number;
  CpuPeriod?: number;
  PidsLimit?: number;
  OomScoreAdj: number;
  CpusetCpus?: string;
  CpusetMems?: string;
}

export function dockerContainerSettings(
  pod: Pod,
  c: Container,
  s: ContainerSettings,
): DockerContainerSettings {
  return {
    ...containerCpuResources(c, s.cpu),
    ...(s.podPidsLimit > 0 ? { PidsLimit: s.podPidsLimit } : {}),
    OomScoreAdj: Math.max(
      s.oomScoreAdjFloor ?? -1000,
      containerOomScoreAdj(pod, c, s.memoryCapacity),
    ),
    ...s.cpuset?.(pod, c),
  };
}

/** The reference's defaults: quota on, a 100ms period, no pids limit, Unconfined seccomp. */
export function defaultContainerSettings(): ContainerSettings {
  return {
    cpu: { cfsQuota: true, cfsQuotaPeriodUs: 100_000 },
    podPidsLimit: -1,
    seccompDefault: false,
    memoryCapacity: totalmem(),
  };
}

/** Writes a pod's resolv.conf and says where it is (PodDnsFiles). */
export interface PodDnsWriter {
  write(pod: Pod): Promise<string>;
  pathOf(pod: Pod): string;
  /** --cluster-domain: the pod's domain (subdomain) and /etc/hosts name under it. */
  readonly clusterDomain?: string;
}

/** What the agent's flags give the runtimes for every pod. */
export interface PodRuntimeSettings {
  container: ContainerSettings;
  dns?: PodDnsWriter;
  /** --cgroups-per-qos: the pod cgroups the containers go in. */
  cgroups?: PodCgroupPlacement;
}
