// Builds the CPU, memory and topology managers from the configuration and the host's layout,
// starts them (restoring their checkpoints, or refusing to start as the reference does), and
// says once which of their options this host or runtime cannot honour.
import { cpus as osCpus, totalmem } from 'node:os';
import type { Logger } from '../../common/log/types.js';
import { ConfigError, userMessage } from '../../common/util/errors.js';
import { parseQuantity } from '../../common/util/values/quantity.js';
import type { NodeAgentConfiguration } from '../config/schema.js';
import type { HostNote } from '../runtime/settings/from-config.js';
import { takeByTopology } from './cpu-assignment.js';
import { CpuManager } from './cpu-manager.js';
import { CpuSet } from './cpuset.js';
import { allCpus, readHostTopology, socketCount, type HostTopology } from './host-topology.js';
import { MemoryManager } from './memory-manager.js';
import {
  parseStaticPolicyOptions,
  parseTopologyPolicyOptions,
  type StaticPolicyOptions,
  type TopologyPolicyOptions,
} from './policy-options.js';
import { ResourceManagers } from './resource-managers.js';
import { reservedMemoryProblem } from './reserved-memory.js';
import { TopologyManager } from './topology-manager.js';
import { TOPOLOGY_POLICIES, type TopologyPolicyName } from './hint-merge.js';
import { isOneOf } from '../../common/util/json-shape.js';

export type ManagersConfig = Pick<
  NodeAgentConfiguration,
  | 'cpuManagerPolicy'
  | 'cpuManagerPolicyOptions'
  | 'reservedSystemCPUs'
  | 'systemReserved'
  | 'platReserved'
  | 'memoryManagerPolicy'
  | 'reservedMemory'
  | 'topologyManagerPolicy'
  | 'topologyManagerScope'
  | 'topologyManagerPolicyOptions'
  | 'evictionHard'
>;

export interface BuildManagersOptions {
  config: ManagersConfig;
  gateEnabled: (gate: string) => boolean;
  rootDir: string;
  runtimeType: 'docker' | 'process';
  logger: Logger;
  /** Default /sys; tests give a fake tree. */
  sysfsRoot?: string;
}

function fail(field: string, flag: string, message: string): never {
  throw new ConfigError(message, { field, flag });
}

/** --reserved-cpus, else ceil(system-reserved + plat-reserved cpu) CPUs picked by topology. */
function reservedCpus(c: ManagersConfig, topo: HostTopology): CpuSet {
  if (c.reservedSystemCPUs !== '') {
    try {
      return CpuSet.parse(c.reservedSystemCPUs);
    } catch (err) {
      return fail(
        'reservedSystemCPUs',
        '--reserved-cpus',
        `invalid configuration: reservedSystemCPUs (--reserved-cpus) "` +
          `${c.reservedSystemCPUs}": ${userMessage(err)}`,
      );
    }
  }
  const milli = (['systemReserved', 'platReserved'] as const).reduce((acc, k) => {
    const q = c[k]['cpu'];
    return acc + (q === undefined ? 0 : Math.round(parseQuantity(q).value * 1000));
  }, 0);
  if (milli === 0)
    fail(
      'cpuManagerPolicy',
      '--cpu-manager-policy',
      '[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to ' +
        'be greater than zero',
    );
  const n = Math.ceil(milli / 1000);
  const all = allCpus(topo);
  const reserved = takeByTopology(topo.cpus, all, Math.min(n, all.size));
  if (reserved.size !== n)
    fail(
      'cpuManagerPolicy',
      '--cpu-manager-policy',
      `new static policy error: [cpumanager] unable to reserve the required amount of ` +
        `CPUs (size of ${reserved.toString()} did not equal ${n})`,
    );
  return reserved;
}

function staticOptions(o: BuildManagersOptions, topo: HostTopology): StaticPolicyOptions {
  const c = o.config;
  let opts: StaticPolicyOptions;
  try {
    opts = parseStaticPolicyOptions(c.cpuManagerPolicyOptions, o.gateEnabled);
  } catch (err) {
    return fail(
      'cpuManagerPolicyOptions',
      '--cpu-manager-policy-options',
      `new static policy error: ${userMessage(err)}`,
    );
  }
  if (opts.alignBySocket) {
    if (c.topologyManagerPolicy === 'single-numa-node')
      fail(
        'cpuManagerPolicyOptions',
        '--cpu-manager-policy-options',
        'new static policy error: Topolgy manager single-numa-node policy is ' +
          'incompatible with CPUManager align-by-socket policy option',
      );
    if (socketCount(topo) > topo.numaNodes.length)
      fail(
        'cpuManagerPolicyOptions',
        '--cpu-manager-policy-options',
        'new static policy error: Align by socket is not compatible with hardware where ' +
          'number of sockets are more than number of NUMA',
      );
  }
  return opts;
}

/** --topology-manager-policy, one of TOPOLOGY_POLICIES (the validator said so already). */
function topologyPolicy(c: ManagersConfig): TopologyPolicyName {
  const policy = c.topologyManagerPolicy;
  if (isOneOf(TOPOLOGY_POLICIES, policy)) return policy;
  return fail(
    'topologyManagerPolicy',
    '--topology-manager-policy',
    `unknown policy ${JSON.stringify(policy)}, expected one of ${TOPOLOGY_POLICIES.join(', ')}`,
  );
}

function topologyOptions(o: BuildManagersOptions, topo: HostTopology): TopologyPolicyOptions {
  let opts: TopologyPolicyOptions;
  try {
    opts = parseTopologyPolicyOptions(o.config.topologyManagerPolicyOptions, o.gateEnabled);
  } catch (err) {
    return fail(
      'topologyManagerPolicyOptions',
      '--topology-manager-policy-options',
      userMessage(err),
    );
  }
  if (
    o.config.topologyManagerPolicy !== 'none' &&
    topo.numaNodes.length > opts.maxAllowableNumaNodes
  ) {
    fail(
      'topologyManagerPolicy',
      '--topology-manager-policy',
      `unsupported on machines with more than ${opts.maxAllowableNumaNodes} NUMA Nodes`,
    );
  }
  return opts;
}

/**
 * --reserved-memory as NUMA node → type → bytes; a node this host lacks is the reference's
 * error.
 */
function reservedMemory(c: ManagersConfig, topo: HostTopology): Map<number, Map<string, number>> {
  const out = new Map<number, Map<string, number>>();
  for (const r of c.reservedMemory) {
    if (!topo.numaNodes.some((n) => n.id === r.numaNode)) {
      fail(
        'reservedMemory',
        '--reserved-memory',
        `the reserved memory configuration references a NUMA node ${r.numaNode} that ` +
          `does not exist on this machine`,
      );
    }
    out.set(
      r.numaNode,
      new Map(Object.entries(r.limits).map(([k, v]) => [k, Math.round(parseQuantity(v).value)])),
    );
  }
  const problem = reservedMemoryProblem(
    c,
    topo.numaNodes.reduce((n, x) => n + x.memoryBytes, 0),
  );
  if (problem !== undefined) fail('reservedMemory', '--reserved-memory', problem);
  return out;
}

function startOrFail(what: 'cpu' | 'memory', start: () => void): void {
  try {
    start();
  } catch (err) {
    const field = what === 'cpu' ? 'cpuManagerPolicy' : 'memoryManagerPolicy';
    fail(field, `--${what}-manager-policy`, `start ${what} manager error: ${userMessage(err)}`);
  }
}

/**
 * Starts both managers. The CPU manager writes its state file as it starts (as the reference's
 * does); when the memory manager then refuses to start, that write has landed before the error
 * is thrown, so nothing is left writing into the root directory of a start that failed.
 */
async function startManagers(cpu: CpuManager, memory: MemoryManager): Promise<void> {
  startOrFail('cpu', () => cpu.start());
  try {
    startOrFail('memory', () => memory.start());
  } catch (err) {
    await cpu.flush();
    throw err;
  }
}

export async function buildResourceManagers(o: BuildManagersOptions): Promise<ResourceManagers> {
  const c = o.config;
  const topo = readHostTopology({
    sysfsRoot: o.sysfsRoot ?? '/sys',
    cpuCount: osCpus().length,
    memoryBytes: totalmem(),
  });
  const isStatic = c.cpuManagerPolicy === 'static';
  if (!isStatic && Object.keys(c.cpuManagerPolicyOptions).length > 0) {
    const opts = Object.entries(c.cpuManagerPolicyOptions)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}:${v}`)
      .join(' ');
    fail(
      'cpuManagerPolicyOptions',
      '--cpu-manager-policy-options',
      `new none policy error: None policy: received unsupported options=map[${opts}]`,
    );
  }
  const cpuOptions = isStatic ? staticOptions(o, topo) : parseStaticPolicyOptions({}, () => true);
  const cpu = new CpuManager({
    policy: isStatic ? 'static' : 'none',
    topology: topo,
    reserved: isStatic ? reservedCpus(c, topo) : new CpuSet(),
    options: cpuOptions,
    rootDir: o.rootDir,
    logger: o.logger.child({ part: 'cpumanager' }),
  });
  const memStatic = c.memoryManagerPolicy === 'Static';
  const memory = new MemoryManager({
    policy: memStatic ? 'Static' : 'None',
    topology: topo,
    reserved: memStatic ? reservedMemory(c, topo) : new Map(),
    rootDir: o.rootDir,
    logger: o.logger.child({ part: 'memorymanager' }),
  });
  const topoOptions = topologyOptions(o, topo);
  const distance = (a: number, b: number): number =>
    topo.numaNodes.find((n) => n.id === a)?.distances.get(b) ?? (a === b ? 10 : 20);
  const topology = new TopologyManager({
    policy: topologyPolicy(c),
    scope: c.topologyManagerScope === 'pod' ? 'pod' : 'container',
    preferClosestNuma: topoOptions.preferClosestNuma,
    numaNodes: topo.numaNodes.map((n) => n.id),
    distance,
    providers: [cpu, memory],
    logger: o.logger.child({ part: 'topologymanager' }),
  });
  await startManagers(cpu, memory);
  return new ResourceManagers({
    cpu,
    memory,
    topology,
    notes: hostNotes(o, topo, cpuOptions),
    runtimeType: o.runtimeType,
    logger: o.logger,
  });
}

const PROCESS =
  'the process:// runtime runs containers as plain host processes, without cgroups (Node has no ' +
  'sched_setaffinity, so processes cannot be pinned like taskset does)';

/** Pinning asked of the process runtime, which cannot pin. */
function processPinningNotes(o: BuildManagersOptions): HostNote[] {
  const c = o.config;
  const pinning = c.cpuManagerPolicy === 'static' || c.memoryManagerPolicy === 'Static';
  if (o.runtimeType !== 'process' || !pinning) return [];
  return [
    {
      option:
        c.cpuManagerPolicy === 'static'
          ? '--cpu-manager-policy=static'
          : '--memory-manager-policy=Static',
      reason: PROCESS,
      effect:
        'CPUs and NUMA memory are assigned, recorded in the state files and checked at ' +
        'admission, but processes are not pinned to them',
    },
  ];
}

/** NUMA alignment asked on a host whose sysfs lists no NUMA nodes. */
function numaNotes(c: ManagersConfig, topo: HostTopology): HostNote[] {
  if (topo.numaFromSysfs) return [];
  if (c.topologyManagerPolicy === 'none' && c.memoryManagerPolicy !== 'Static') return [];
  return [
    {
      option:
        `--topology-manager-policy=${c.topologyManagerPolicy}, --memory-manager-policy=` +
        c.memoryManagerPolicy,
      reason: 'sysfs lists no NUMA nodes (/sys/devices/system/node)',
      effect:
        'the host counts as one NUMA node 0 holding every CPU and all memory: every pod aligns',
    },
  ];
}

/** Reserved CPUs this host does not have, and a one-CPU host under the static policy. */
function cpuNotes(c: ManagersConfig, topo: HostTopology): HostNote[] {
  if (c.cpuManagerPolicy !== 'static') return [];
  const notes: HostNote[] = [];
  const offline =
    c.reservedSystemCPUs !== ''
      ? CpuSet.parse(c.reservedSystemCPUs).difference(allCpus(topo))
      : new CpuSet();
  if (offline.size > 0)
    notes.push({
      option: `--reserved-cpus=${c.reservedSystemCPUs}`,
      reason: `CPUs ${offline.toString()} are not online on this host`,
      effect: 'they reserve nothing; the other listed CPUs stay reserved',
    });
  if (topo.cpus.length <= 1)
    notes.push({
      option: '--cpu-manager-policy=static',
      reason: 'this host has one CPU and the static policy keeps at least one CPU reserved',
      effect:
        'no container gets an exclusive CPU; Guaranteed pods asking for whole CPUs are rejected ' +
        '(UnexpectedAdmissionError)',
    });
  return notes;
}

/** Static policy options validated as the reference does but not placed by this version. */
function unimplementedOptionNotes(opts: StaticPolicyOptions): HostNote[] {
  const unimplemented: [boolean, string, string][] = [
    [
      opts.distributeCpusAcrossCores,
      'distribute-cpus-across-cores',
      'CPUs are packed onto whole cores',
    ],
    [
      opts.preferAlignByUncoreCache,
      'prefer-align-cpus-by-uncorecache',
      'the uncore cache is not read from sysfs; CPUs are packed by socket and core',
    ],
  ];
  return unimplemented
    .filter(([on]) => on)
    .map(([, name, effect]) => ({
      option: `--cpu-manager-policy-options=${name}`,
      reason:
        'this version validates the option as the reference does but does not implement its ' +
        'placement',
      effect,
    }));
}

/** What the resource managers cannot do on this host as configured, one note each. */
function hostNotes(
  o: BuildManagersOptions,
  topo: HostTopology,
  opts: StaticPolicyOptions,
): HostNote[] {
  return [
    ...processPinningNotes(o),
    ...numaNotes(o.config, topo),
    ...cpuNotes(o.config, topo),
    ...unimplementedOptionNotes(opts),
  ];
}
