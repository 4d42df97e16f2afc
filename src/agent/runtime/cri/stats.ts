// CRI ContainerStats to the agent's ContainerStats (what /stats/summary, the metrics and eviction
// read): CPU nano-cores and core-nanoseconds, memory working set and RSS; values that are not
// finite non-negative numbers are left out.
import type { ContainerStats } from '../types.js';
import type { ContainerStats as CriContainerStats, UInt64Value } from './types.generated.js';

function valueOf(v: UInt64Value | undefined): number | undefined {
  const n = v?.value;
  return n !== undefined && Number.isFinite(n) && n >= 0 ? n : undefined;
}

export function statsOf(s: CriContainerStats): ContainerStats {
  const out: ContainerStats = {};
  const cpu = valueOf(s.cpu?.usage_nano_cores);
  const cpuTotal = valueOf(s.cpu?.usage_core_nano_seconds);
  const ws = valueOf(s.memory?.working_set_bytes);
  const rss = valueOf(s.memory?.rss_bytes);
  if (cpu !== undefined) out.cpuUsageNanoCores = cpu;
  if (cpuTotal !== undefined) out.cpuUsageCoreNanoSeconds = cpuTotal;
  if (ws !== undefined) out.memoryWorkingSetBytes = ws;
  if (rss !== undefined) out.memoryRssBytes = rss;
  return out;
}
