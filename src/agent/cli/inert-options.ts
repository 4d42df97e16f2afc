// The options that are parsed and validated but do not take effect yet (issue 16 items 1, 4, 5, 6).
// The agent says so at start: a warning for each one set away from its default, and one line
// naming the rest, so none is accepted and silently ignored.
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '../../common/log/types.js';
import { defaultConfiguration } from '../config/defaults.js';
import { buildNodeAgentFlags, type NodeAgentFlags } from '../config/flags-type.js';
import type { NodeAgentConfiguration } from '../config/schema.js';
import { FLAGS } from './flags.js';

export const INERT_OPTIONS: readonly string[] = [
  'cgroups-per-qos', 'cgroup-driver', 'cgroup-root', 'runtime-cgroups', 'system-cgroups', 'nodeagent-cgroups',
  'system-reserved-cgroup', 'plat-reserved-cgroup', 'enforce-node-allocatable', 'qos-reserved',
  'cpu-manager-policy', 'cpu-manager-policy-options', 'cpu-manager-reconcile-period', 'reserved-cpus', 'reserved-memory',
  'memory-manager-policy', 'topology-manager-policy', 'topology-manager-scope', 'topology-manager-policy-options',
  'kernel-memcg-notification', 'image-credential-provider-config', 'image-credential-provider-bin-dir',
  'experimental-allocatable-ignore-eviction', 'local-storage-capacity-isolation', 'hairpin-mode',
  'make-iptables-util-chains', 'pod-cidr', 'enable-controller-attach-detach', 'experimental-mounter-path',
  'volume-plugin-dir', 'volume-stats-agg-period', 'contention-profiling',
];

function atPath(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const k of path.split('.')) cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[k] : undefined;
  return cur;
}

/** The inert options whose value differs from the default of either defaults mode. */
export function inertOptionsSet(config: NodeAgentConfiguration, flags: NodeAgentFlags): string[] {
  const defaults = [defaultConfiguration('flags'), defaultConfiguration('file')];
  const flagDefaults = buildNodeAgentFlags(FLAGS, new Map());
  const out: string[] = [];
  for (const spec of FLAGS) {
    if (!INERT_OPTIONS.includes(spec.name)) continue;
    if (spec.configPath !== undefined) {
      const v = atPath(config, spec.configPath);
      if (!defaults.some((d) => isDeepStrictEqual(atPath(d, spec.configPath ?? ''), v))) out.push(spec.name);
    } else if (spec.flagsField !== undefined && !isDeepStrictEqual(flags[spec.flagsField], flagDefaults[spec.flagsField])) {
      out.push(spec.name);
    }
  }
  return out;
}

export function logInertOptions(config: NodeAgentConfiguration, flags: NodeAgentFlags, logger: Logger): void {
  const set = inertOptionsSet(config, flags);
  for (const name of set) {
    logger.warn({ option: `--${name}` }, `--${name} is set but takes no effect in this version of nodeagent; the agent runs as if it were at its default`);
  }
  const rest = INERT_OPTIONS.filter((n) => !set.includes(n)).map((n) => `--${n}`);
  logger.info({ options: rest }, 'These options are accepted at their defaults but are not implemented yet (no cgroup hierarchy, CPU/memory/topology managers, credential providers, network or volume plugins)');
}
