// The limits a cgroup gets, computed as the reference's container manager does
// (pkg/kubelet/cm/helpers_linux.go ResourceConfigForPod, node_container_manager_linux.go
// getCgroupConfig): pod limits from the sum of its containers, the top-level cgroup from node
// allocatable, and the cgroup v2 spelling of CPU shares (cpu.weight).
import { parseQuantity } from '../../common/util/values/quantity.js';
import type { Container, Pod } from '../pod/types.js';
import {
  MAX_SHARES,
  MIN_SHARES,
  milliCpuToQuota,
  milliCpuToShares,
  milliValue,
} from '../runtime/settings/cpu.js';
import { podQosClass } from '../runtime/settings/qos.js';

export interface ResourceConfig {
  cpuShares?: number;
  /** CFS quota in microseconds; -1 is no quota. */
  cpuQuota?: number;
  cpuPeriod?: number;
  /** Memory limit in bytes. */
  memory?: number;
  /** Process limit; -1 is no limit. */
  pidsLimit?: number;
}

export interface PodLimitSettings {
  /** --cpu-cfs-quota */
  enforceCpuLimits: boolean;
  /** --cpu-cfs-quota-period in microseconds */
  cpuPeriodUs: number;
  /** --pod-max-pids; <= 0 is none. */
  podPidsLimit: number;
}

function bytes(q: string | undefined): number {
  if (q === undefined) return 0;
  try {
    return Math.ceil(parseQuantity(q).value);
  } catch {
    return 0;
  }
}

function milli(q: string | undefined): number {
  try {
    return milliValue(q) ?? 0;
  } catch {
    return 0;
  }
}

interface Amounts {
  cpu: number;
  memory: number;
}

/** A container's requests (a request left out defaults to its limit, as API defaulting does). */
function requestsOf(c: Container): Amounts {
  const r = { ...(c.resources?.limits ?? {}), ...(c.resources?.requests ?? {}) };
  return { cpu: milli(r['cpu']), memory: bytes(r['memory']) };
}

function limitsOf(c: Container): Amounts {
  return {
    cpu: milli(c.resources?.limits?.['cpu']),
    memory: bytes(c.resources?.limits?.['memory']),
  };
}

/**
 * resource.PodRequests / PodLimits: the sum of the app containers, at least the largest init
 * container.
 */
function podAmounts(pod: Pod, of: (c: Container) => Amounts): Amounts {
  const sum = { cpu: 0, memory: 0 };
  for (const c of pod.spec.containers) {
    const a = of(c);
    sum.cpu += a.cpu;
    sum.memory += a.memory;
  }
  for (const c of pod.spec.initContainers ?? []) {
    const a = of(c);
    sum.cpu = Math.max(sum.cpu, a.cpu);
    sum.memory = Math.max(sum.memory, a.memory);
  }
  return sum;
}

/** The pod's summed requests (milli-CPU and memory bytes). */
export function podRequests(pod: Pod): Amounts {
  return podAmounts(pod, requestsOf);
}

/** ResourceConfigForPod. */
export function podResourceConfig(pod: Pod, s: PodLimitSettings): ResourceConfig {
  const all = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])];
  const cpuLimitsDeclared = all.every((c) => limitsOf(c).cpu !== 0);
  const memoryLimitsDeclared = all.every((c) => limitsOf(c).memory !== 0);
  const reqs = podRequests(pod);
  const limits = podAmounts(pod, limitsOf);
  const cpuShares = milliCpuToShares(reqs.cpu);
  const cpuQuota = s.enforceCpuLimits ? milliCpuToQuota(limits.cpu, s.cpuPeriodUs) : -1;
  const pids = s.podPidsLimit > 0 ? { pidsLimit: s.podPidsLimit } : {};
  switch (podQosClass(pod)) {
    case 'Guaranteed':
      return { cpuShares, cpuQuota, cpuPeriod: s.cpuPeriodUs, memory: limits.memory, ...pids };
    case 'Burstable':
      return {
        cpuShares,
        ...(cpuLimitsDeclared ? { cpuQuota, cpuPeriod: s.cpuPeriodUs } : {}),
        ...(memoryLimitsDeclared ? { memory: limits.memory } : {}),
        ...pids,
      };
    default:
      return { cpuShares: MIN_SHARES, ...pids };
  }
}

/** getCgroupConfig over a resource list (cpu in cores, memory in bytes, pid a count). */
export function cgroupConfigOf(
  rl: Readonly<Record<string, number>>,
  compressibleOnly: boolean,
): ResourceConfig {
  const cpu = rl['cpu'];
  const shares = cpu !== undefined ? { cpuShares: milliCpuToShares(Math.round(cpu * 1000)) } : {};
  if (compressibleOnly) return shares;
  return {
    ...(rl['memory'] !== undefined ? { memory: rl['memory'] } : {}),
    ...(rl['pid'] !== undefined ? { pidsLimit: rl['pid'] } : {}),
    ...shares,
  };
}

/** The reference's getCPUWeight: cgroup v2 cpu.weight from v1 cpu.shares. */
export function cpuSharesToWeight(shares: number): number {
  if (shares >= MAX_SHARES) return 10000;
  return 1 + Math.trunc(((shares - 2) * 9999) / 262142);
}
