// Builds the runtimes' pod settings and the sysctl admission handler from the configuration, and
// says once at start which of these options this host and runtime cannot honour (and why).
import { hostHugePageSizes } from './huge-pages.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { release, totalmem } from 'node:os';
import type { Logger } from '../../../common/log/types.js';
import { parseDurationNs } from '../../../common/util/values/duration.js';
import { ConfigError, userMessage } from '../../../common/util/errors.js';
import type { NodeAgentConfiguration } from '../../config/schema.js';
import type { Pod } from '../../pod/types.js';
import type { PodRuntimeSettings } from './container-settings.js';
import { PodDnsFiles } from './pod-dns-file.js';
import type { DnsWarning } from './pod-dns.js';
import { admitSysctls, safeSysctls, SysctlAllowlist, type SysctlAdmitResult } from './sysctls.js';
import { hostSwapBytes, type SwapSettings } from './swap.js';
import { admitAppArmor, hostAppArmorEnabled } from '../security/apparmor.js';
import { hostThermalThrottlePaths } from '../security/thermal-throttle.js';

export type SettingsConfig = Pick<
  NodeAgentConfiguration,
  | 'cpuCFSQuota'
  | 'cpuCFSQuotaPeriod'
  | 'podPidsLimit'
  | 'seccompDefault'
  | 'clusterDNS'
  | 'clusterDomain'
  | 'resolvConf'
  | 'allowedUnsafeSysctls'
> &
  Partial<Pick<NodeAgentConfiguration, 'memorySwap' | 'cgroupsPerQOS'>>;

export interface PodSettingsOptions {
  config: SettingsConfig;
  rootDir: string;
  /** process:// or a Docker endpoint. */
  runtimeType: 'docker' | 'process';
  logger: Logger;
  kernelRelease?: string;
  nodeIPs?: readonly string[];
  onDnsWarning?: (pod: Pod, w: DnsWarning) => void;
  /** Default: read from /proc/self/status (CAP_SYS_RESOURCE in CapEff). */
  canLowerOomScore?: boolean;
  /** Default: /sys/fs/cgroup/cgroup.controllers exists. */
  cgroupV2?: boolean;
  /** Whether the host enforces AppArmor; default: read from /sys. */
  appArmorEnabled?: boolean;
  /** The host's swap in bytes; default: SwapTotal of /proc/meminfo. */
  swapCapacityBytes?: number;
}

const CAP_SYS_RESOURCE = 24n;

/** Whether this process may lower oom_score_adj (CAP_SYS_RESOURCE), read from /proc/self/status. */
export function hasCapSysResource(statusPath = '/proc/self/status'): boolean {
  try {
    const m = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync(statusPath, 'utf8'));
    return m?.[1] !== undefined && ((BigInt(`0x${m[1]}`) >> CAP_SYS_RESOURCE) & 1n) === 1n;
  } catch {
    return false;
  }
}

export interface PodSettings {
  runtime: PodRuntimeSettings;
  admitSysctls: (pod: Pod) => SysctlAdmitResult;
  /**
   * The reference's AppArmor admission: confinement asked on a host without AppArmor is refused.
   */
  admitAppArmor: (pod: Pod) => SysctlAdmitResult;
  /** What cannot take effect here: option, reason, effect. Logged once by logHostNotes. */
  notes: HostNote[];
}

export interface HostNote {
  option: string;
  reason: string;
  effect: string;
}

function periodUs(value: string): number {
  try {
    return Number(parseDurationNs(value, '--cpu-cfs-quota-period') / 1000n);
  } catch (err) {
    throw new ConfigError(
      `invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) ${userMessage(err)}`,
      { field: 'cpuCFSQuotaPeriod', flag: '--cpu-cfs-quota-period' },
    );
  }
}

function allowlist(c: SettingsConfig, kernel: string): SysctlAllowlist {
  try {
    return new SysctlAllowlist([...safeSysctls(kernel), ...c.allowedUnsafeSysctls]);
  } catch (err) {
    throw new ConfigError(
      `invalid configuration: allowedUnsafeSysctls (--allowed-unsafe-sysctls) ${userMessage(err)}`,
      { field: 'allowedUnsafeSysctls', flag: '--allowed-unsafe-sysctls' },
    );
  }
}

const NO_ISOLATION =
  'the process:// runtime runs containers as plain host processes, without cgroups, seccomp or ' +
  'namespaces';

function processNotes(c: SettingsConfig): HostNote[] {
  const notes: HostNote[] = [
    {
      option: '--cpu-cfs-quota',
      reason: NO_ISOLATION,
      effect: 'CPU limits of containers are not enforced',
    },
    { option: '--cpu-cfs-quota-period', reason: NO_ISOLATION, effect: 'no CFS period is set' },
    {
      option: '--seccomp-default',
      reason: NO_ISOLATION,
      effect: 'processes run without a seccomp profile',
    },
    {
      option: '--allowed-unsafe-sysctls',
      reason: NO_ISOLATION,
      effect: 'pod sysctls are admitted as on any node but not applied: they would change the host',
    },
  ];
  if (c.podPidsLimit > 0)
    notes.push({
      option: '--pod-max-pids',
      reason: NO_ISOLATION,
      effect: 'the number of processes of a pod is not limited',
    });
  return notes;
}

function readSwapBytes(): number {
  try {
    return hostSwapBytes(readFileSync('/proc/meminfo', 'utf8'));
  } catch {
    return 0;
  }
}

/** memorySwap on Docker, and what of it this host cannot do. */
function swapSettings(opts: PodSettingsOptions, notes: HostNote[]): SwapSettings | undefined {
  const behavior = opts.config.memorySwap?.swapBehavior ?? '';
  if (opts.runtimeType === 'process') {
    if (behavior !== '')
      notes.push({
        option: 'memorySwap',
        reason: NO_ISOLATION,
        effect: 'the swap use of containers is not limited',
      });
    return undefined;
  }
  const cgroupV2 = opts.cgroupV2 ?? existsSync('/sys/fs/cgroup/cgroup.controllers');
  const swapCapacityBytes = opts.swapCapacityBytes ?? readSwapBytes();
  if (behavior === 'LimitedSwap' && !cgroupV2) {
    notes.push({
      option: 'memorySwap.swapBehavior=LimitedSwap',
      reason: 'LimitedSwap needs cgroup v2 and this host uses cgroup v1',
      effect: 'containers get no swap (NoSwap), as the reference does',
    });
  }
  if (swapCapacityBytes > 0) {
    notes.push({
      option: 'memorySwap',
      reason: 'Docker limits swap only together with a memory limit',
      effect: "containers without a memory limit may use the host's swap",
    });
  }
  return {
    behavior: behavior === 'LimitedSwap' ? 'LimitedSwap' : 'NoSwap',
    swapCapacityBytes,
    cgroupV2,
  };
}

export function buildPodSettings(opts: PodSettingsOptions): PodSettings {
  const c = opts.config;
  const allow = allowlist(c, opts.kernelRelease ?? release());
  const dns = new PodDnsFiles({
    rootDir: opts.rootDir,
    settings: {
      clusterDNS: c.clusterDNS,
      clusterDomain: c.clusterDomain,
      resolvConf: c.resolvConf,
      ...(opts.nodeIPs !== undefined ? { nodeIPs: opts.nodeIPs } : {}),
    },
    logger: opts.logger.child({ part: 'dns' }),
    ...(opts.onDnsWarning !== undefined ? { onWarning: opts.onDnsWarning } : {}),
  });
  const notes: HostNote[] = opts.runtimeType === 'process' ? processNotes(c) : [];
  if (opts.runtimeType === 'docker' && c.podPidsLimit > 0 && c.cgroupsPerQOS === false) {
    notes.push({
      option: '--pod-max-pids',
      reason: 'there are no pod cgroups (--cgroups-per-qos=false)',
      effect:
        `each container, not each pod, is limited to ${c.podPidsLimit} processes (Docker ` +
        `PidsLimit)`,
    });
  }
  const swap = swapSettings(opts, notes);
  const appArmor = opts.appArmorEnabled ?? hostAppArmorEnabled();
  const lower = opts.canLowerOomScore ?? hasCapSysResource();
  if (!lower && opts.runtimeType === 'docker') {
    notes.push({
      option: 'QoS oom_score_adj (Guaranteed -997, Burstable by memory request)',
      reason: 'this host does not let the agent lower oom_score_adj (no CAP_SYS_RESOURCE)',
      effect: 'containers whose reference score is negative get 0 instead',
    });
  }
  return {
    runtime: {
      container: {
        cpu: { cfsQuota: c.cpuCFSQuota, cfsQuotaPeriodUs: periodUs(c.cpuCFSQuotaPeriod) },
        podPidsLimit: c.podPidsLimit,
        seccompDefault: c.seccompDefault,
        seccompProfileRoot: join(opts.rootDir, 'seccomp'),
        thermalThrottlePaths: hostThermalThrottlePaths(),
        memoryCapacity: totalmem(),
        hugePageSizes: hostHugePageSizes(),
        ...(lower ? {} : { oomScoreAdjFloor: 0 }),
        ...(swap !== undefined ? { swap } : {}),
      },
      dns,
    },
    admitSysctls: (pod) => admitSysctls(pod, allow),
    admitAppArmor: (pod) => admitAppArmor(pod, appArmor),
    notes,
  };
}

/** Logs every note once, naming the option, the reason and the effect. */
export function logHostNotes(notes: readonly HostNote[], logger: Logger): void {
  for (const n of notes)
    logger.warn(
      { option: n.option, reason: n.reason, effect: n.effect },
      `${n.option} cannot take effect on this host: ${n.reason}; ${n.effect}`,
    );
}
