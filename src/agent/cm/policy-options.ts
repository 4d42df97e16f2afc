// --cpu-manager-policy-options and --topology-manager-policy-options, validated as the reference
// 1.32 does (cpumanager/policy_options.go, topologymanager/policy_options.go): unknown names,
// options of a maturity whose gate is off, values that are not a Go bool (or int).

export interface StaticPolicyOptions {
  fullPhysicalCpusOnly: boolean;
  distributeCpusAcrossNuma: boolean;
  alignBySocket: boolean;
  distributeCpusAcrossCores: boolean;
  strictCpuReservation: boolean;
  preferAlignByUncoreCache: boolean;
}

const CPU_OPTIONS: Record<
  string,
  { level: 'alpha' | 'beta' | 'stable'; field: keyof StaticPolicyOptions }
> = {
  'full-pcpus-only': { level: 'beta', field: 'fullPhysicalCpusOnly' },
  'distribute-cpus-across-numa': { level: 'alpha', field: 'distributeCpusAcrossNuma' },
  'align-by-socket': { level: 'alpha', field: 'alignBySocket' },
  'distribute-cpus-across-cores': { level: 'alpha', field: 'distributeCpusAcrossCores' },
  'strict-cpu-reservation': { level: 'alpha', field: 'strictCpuReservation' },
  'prefer-align-cpus-by-uncorecache': { level: 'alpha', field: 'preferAlignByUncoreCache' },
};

/** Go's strconv.ParseBool. */
export function parseGoBool(name: string, value: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new Error(
    `bad value for option "${name}": strconv.ParseBool: parsing "${value}": invalid syntax`,
  );
}

function checkAvailable(
  kind: 'CPU Manager' | 'Topology Manager',
  name: string,
  level: 'alpha' | 'beta' | 'stable' | undefined,
  on: (gate: string) => boolean,
): void {
  const prefix = kind === 'CPU Manager' ? 'CPUManager' : 'TopologyManager';
  if (level === undefined) throw new Error(`unknown ${kind} Policy option: "${name}"`);
  if (level === 'alpha' && !on(`${prefix}PolicyAlphaOptions`))
    throw new Error(
      `${kind} Policy Alpha-level Options not enabled, but option "${name}" provided`,
    );
  if (level === 'beta' && !on(`${prefix}PolicyBetaOptions`))
    throw new Error(`${kind} Policy Beta-level Options not enabled, but option "${name}" provided`);
}

const EXCLUSIVE: readonly (readonly [string, string])[] = [
  ['full-pcpus-only', 'distribute-cpus-across-cores'],
  ['distribute-cpus-across-numa', 'distribute-cpus-across-cores'],
  ['prefer-align-cpus-by-uncorecache', 'distribute-cpus-across-cores'],
  ['prefer-align-cpus-by-uncorecache', 'distribute-cpus-across-numa'],
];

/**
 * NewStaticPolicyOptions: throws the reference's error (without the "new static policy error: "
 * wrapper).
 */
export function parseStaticPolicyOptions(
  options: Readonly<Record<string, string>>,
  on: (gate: string) => boolean,
): StaticPolicyOptions {
  const out: StaticPolicyOptions = {
    fullPhysicalCpusOnly: false,
    distributeCpusAcrossNuma: false,
    alignBySocket: false,
    distributeCpusAcrossCores: false,
    strictCpuReservation: false,
    preferAlignByUncoreCache: false,
  };
  for (const [name, value] of Object.entries(options)) {
    const spec = CPU_OPTIONS[name];
    checkAvailable('CPU Manager', name, spec?.level, on);
    if (spec !== undefined) out[spec.field] = parseGoBool(name, value);
  }
  for (const [a, b] of EXCLUSIVE) {
    const fa = CPU_OPTIONS[a]?.field;
    const fb = CPU_OPTIONS[b]?.field;
    if (fa !== undefined && fb !== undefined && out[fa] && out[fb])
      throw new Error(`static policy options ${a} and ${b} can not be used at the same time`);
  }
  return out;
}

export interface TopologyPolicyOptions {
  preferClosestNuma: boolean;
  maxAllowableNumaNodes: number;
}

export const DEFAULT_MAX_ALLOWABLE_NUMA_NODES = 8;

const TOPOLOGY_LEVELS: Record<string, 'alpha' | 'beta' | 'stable'> = {
  'prefer-closest-numa-nodes': 'stable',
  'max-allowable-numa-nodes': 'beta',
};

function parseGoInt(name: string, value: string): number {
  if (!/^[+-]?\d{1,18}$/.test(value))
    throw new Error(
      `bad value for option "${name}": strconv.Atoi: parsing "${value}": invalid syntax`,
    );
  return Number(value);
}

/** NewPolicyOptions of the topology manager; throws the reference's error. */
export function parseTopologyPolicyOptions(
  options: Readonly<Record<string, string>>,
  on: (gate: string) => boolean,
): TopologyPolicyOptions {
  const out: TopologyPolicyOptions = {
    preferClosestNuma: false,
    maxAllowableNumaNodes: DEFAULT_MAX_ALLOWABLE_NUMA_NODES,
  };
  for (const [name, value] of Object.entries(options)) {
    checkAvailable('Topology Manager', name, TOPOLOGY_LEVELS[name], on);
    if (name === 'prefer-closest-numa-nodes') out.preferClosestNuma = parseGoBool(name, value);
    if (name === 'max-allowable-numa-nodes') {
      const n = parseGoInt(name, value);
      if (n < DEFAULT_MAX_ALLOWABLE_NUMA_NODES)
        throw new Error(
          `the minimum value of "${name}" should not be less than ` +
            `${DEFAULT_MAX_ALLOWABLE_NUMA_NODES}`,
        );
      out.maxAllowableNumaNodes = n;
    }
  }
  return out;
}
