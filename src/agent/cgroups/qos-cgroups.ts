// The QoS level of the hierarchy, as the reference's qosContainerManager: the Burstable and
// BestEffort cgroups under the pods' top-level cgroup, their CPU shares from the pods that are
// active (BestEffort always 2, Burstable the sum of its pods' CPU requests) and, with
// --qos-reserved memory=<n>%, memory limits that keep that share of the higher classes' requests.
import type { Pod } from '../pod/types.js';
import { MIN_SHARES, milliCpuToShares } from '../runtime/settings/cpu.js';
import { podQosClass, type QosClass } from '../runtime/settings/qos.js';
import type { CgroupFs } from './cgroup-fs.js';
import { driverName, qosCgroupName, type CgroupDriver, type CgroupName } from './names.js';
import { podRequests, type ResourceConfig } from './resources.js';

export interface QosCgroupsOptions {
  fs: CgroupFs;
  driver: CgroupDriver;
  /** The pods' top-level cgroup (`<cgroup-root>/kubepods`). */
  pods: CgroupName;
  /** --qos-reserved memory percentage; undefined: no memory limits on the QoS cgroups. */
  memoryReservePercent?: number;
  /** Node allocatable memory in bytes (the base of the --qos-reserved limits). */
  allocatableMemory: number;
}

/** The QoS cgroups' limits for a set of active pods (setCPUCgroupConfig, setMemoryReserve). */
export function qosResourceConfigs(
  pods: readonly Pod[],
  opts: Pick<QosCgroupsOptions, 'memoryReservePercent' | 'allocatableMemory'>,
): Record<'Burstable' | 'BestEffort', ResourceConfig> {
  let burstableCpu = 0;
  const memoryRequests: Record<QosClass, number> = { Guaranteed: 0, Burstable: 0, BestEffort: 0 };
  for (const p of pods) {
    const qos = podQosClass(p);
    const req = podRequests(p);
    if (qos === 'Burstable') burstableCpu += req.cpu;
    memoryRequests[qos] += req.memory;
  }
  const out: Record<'Burstable' | 'BestEffort', ResourceConfig> = {
    Burstable: { cpuShares: milliCpuToShares(burstableCpu) },
    BestEffort: { cpuShares: MIN_SHARES },
  };
  const pct = opts.memoryReservePercent;
  if (pct !== undefined && opts.allocatableMemory > 0) {
    // integer arithmetic as in Go
    const burstableLimit =
      opts.allocatableMemory - Math.trunc((memoryRequests.Guaranteed * pct) / 100);
    const bestEffortLimit = burstableLimit - Math.trunc((memoryRequests.Burstable * pct) / 100);
    out.Burstable.memory = burstableLimit;
    out.BestEffort.memory = bestEffortLimit;
  }
  return out;
}

export class QosCgroups {
  private readonly opts: QosCgroupsOptions;

  constructor(opts: QosCgroupsOptions) {
    this.opts = opts;
  }

  path(qos: QosClass): string {
    return driverName(qosCgroupName(this.opts.pods, qos), this.opts.driver);
  }

  /** Creates the Burstable and BestEffort cgroups (qosContainerManager.Start). */
  async start(): Promise<void> {
    const configs = qosResourceConfigs([], this.opts);
    for (const qos of ['Burstable', 'BestEffort'] as const) {
      const p = this.path(qos);
      if (await this.opts.fs.exists(p)) await this.opts.fs.update(p, configs[qos]);
      else await this.opts.fs.create(p, configs[qos]);
    }
  }

  /** UpdateCgroups: the shares (and reserved memory) for the pods active now. */
  async update(active: readonly Pod[]): Promise<void> {
    const configs = qosResourceConfigs(active, this.opts);
    for (const qos of ['Burstable', 'BestEffort'] as const)
      await this.opts.fs.update(this.path(qos), configs[qos]);
  }
}
