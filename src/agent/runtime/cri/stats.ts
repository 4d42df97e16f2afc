// CRI stats to the agent's (what /stats/summary and eviction read): a container's CPU nano-cores
// and core-nanoseconds, memory working set and RSS (ContainerStats), and a pod sandbox's own
// measure of the same plus its network interfaces (PodSandboxStats, Linux). Values that are not
// finite non-negative numbers are left out.
import type { ContainerStats, NetworkInterfaceStats, PodStats } from '../types.js';
import type {
  ContainerStats as CriContainerStats,
  CpuUsage,
  MemoryUsage,
  NetworkInterfaceUsage,
  NetworkUsage,
  PodSandboxStats,
  UInt64Value,
} from './types.generated.js';

/** The most interfaces kept of one sandbox (a pod with more is absurd). */
const MAX_INTERFACES = 64;

function valueOf(v: UInt64Value | undefined): number | undefined {
  const n = v?.value;
  return n !== undefined && Number.isFinite(n) && n >= 0 ? n : undefined;
}

function usageOf(cpu: CpuUsage | undefined, memory: MemoryUsage | undefined): ContainerStats {
  const out: ContainerStats = {};
  const nanoCores = valueOf(cpu?.usage_nano_cores);
  const coreNanos = valueOf(cpu?.usage_core_nano_seconds);
  const ws = valueOf(memory?.working_set_bytes);
  const rss = valueOf(memory?.rss_bytes);
  if (nanoCores !== undefined) out.cpuUsageNanoCores = nanoCores;
  if (coreNanos !== undefined) out.cpuUsageCoreNanoSeconds = coreNanos;
  if (ws !== undefined) out.memoryWorkingSetBytes = ws;
  if (rss !== undefined) out.memoryRssBytes = rss;
  return out;
}

export function statsOf(s: CriContainerStats): ContainerStats {
  return usageOf(s.cpu, s.memory);
}

function interfaceOf(i: NetworkInterfaceUsage): NetworkInterfaceStats {
  const out: NetworkInterfaceStats = { name: (i.name ?? '').slice(0, 64) };
  const fields = [
    ['rxBytes', i.rx_bytes],
    ['rxErrors', i.rx_errors],
    ['txBytes', i.tx_bytes],
    ['txErrors', i.tx_errors],
  ] as const;
  for (const [key, v] of fields) {
    const n = valueOf(v);
    if (n !== undefined) out[key] = n;
  }
  return out;
}

function networkOf(n: NetworkUsage | undefined): PodStats['network'] {
  if (n === undefined) return undefined;
  const interfaces = (n.interfaces ?? []).slice(0, MAX_INTERFACES).map(interfaceOf);
  const d = n.default_interface;
  if (d === undefined && interfaces.length === 0) return undefined;
  return d === undefined ? { interfaces } : { defaultInterface: interfaceOf(d), interfaces };
}

/** A sandbox's own measure (Linux); undefined when the runtime gave none. */
export function podStatsOf(s: PodSandboxStats): PodStats | undefined {
  const linux = s.linux;
  if (linux === undefined) return undefined;
  const out: PodStats = usageOf(linux.cpu, linux.memory);
  const network = networkOf(linux.network);
  if (network !== undefined) out.network = network;
  return out;
}
