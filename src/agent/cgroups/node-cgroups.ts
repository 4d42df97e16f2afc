// The agent's cgroup hierarchy, as the reference's container manager builds it at start:
// checks --cgroup-root exists, creates the pods' top-level cgroup (`kubepods` under the
// reference's names, `platpods` under ours) with node allocatable, the QoS cgroups, enforces the
// reserved levels of --enforce-node-allocatable, and moves the agent (--nodeagent-cgroups) and the
// host's other processes (--system-cgroups) into their cgroups. Built without I/O; start() acts.
import type { Logger } from '../../common/log/types.js';
import type { CgroupFs } from './cgroup-fs.js';
import {
  allocatableOf,
  enforceExistingCgroup,
  EnforcementError,
  missingPathsMessage,
  reservedList,
  type NodeCapacity,
  type ReservedEnforcement,
} from './node-allocatable.js';
import {
  driverName,
  parseCgroupfs,
  parseDriverName,
  podsCgroupComponent,
  type CgroupDriver,
  type CgroupName,
} from './names.js';
import { PodCgroups } from './pod-cgroups.js';
import { QosCgroups } from './qos-cgroups.js';
import { cgroupConfigOf, type PodLimitSettings } from './resources.js';
import { moveHostProcesses, type ProcessProbe } from './system-cgroups.js';

export interface NodeCgroupsConfig {
  cgroupsPerQOS: boolean;
  cgroupRoot: string;
  cgroupDriver: string;
  enforceNodeAllocatable: readonly string[];
  systemReserved: Readonly<Record<string, string>>;
  platReserved: Readonly<Record<string, string>>;
  systemReservedCgroup: string;
  platReservedCgroup: string;
  nodeagentCgroups: string;
  systemCgroups: string;
  qosReserved: Readonly<Record<string, string>>;
}

export interface NodeCgroupsOptions {
  config: NodeCgroupsConfig;
  fs: CgroupFs;
  /** The product word of the naming profile (`plat` or `kube`). */
  product: string;
  limits: PodLimitSettings;
  capacity: NodeCapacity;
  logger: Logger;
  /** This process (--nodeagent-cgroups). Default process.pid. */
  selfPid?: number;
  /** Processes of the root cgroup and which are kernel threads (--system-cgroups). */
  processes?: ProcessProbe;
  kill?: (pid: number, signal: NodeJS.Signals) => void;
}

/** The reference's words for our levels: its "Kube Reserved" is our plat-reserved. */
function reservedLabel(product: string): string {
  return `${product.charAt(0).toUpperCase()}${product.slice(1)} Reserved`;
}

export class NodeCgroups {
  /** Set with --cgroups-per-qos: the pod cgroups the workers and runtimes use. */
  readonly pods: PodCgroups | undefined;
  private readonly qos: QosCgroups | undefined;
  private readonly opts: NodeCgroupsOptions;
  private readonly driver: CgroupDriver;
  private readonly root: CgroupName;
  private readonly podsName: CgroupName;

  constructor(opts: NodeCgroupsOptions) {
    this.opts = opts;
    const c = opts.config;
    this.driver = c.cgroupDriver === 'systemd' ? 'systemd' : 'cgroupfs';
    // the reference parses --cgroup-root with the cgroupfs rules whatever the driver
    this.root = parseCgroupfs(c.cgroupRoot === '' ? '/' : c.cgroupRoot);
    this.podsName = [...this.root, podsCgroupComponent({ product: opts.product })];
    if (!c.cgroupsPerQOS) return;
    const pct = c.qosReserved['memory'];
    const memoryReservePercent = pct === undefined ? undefined : Number(pct.replace('%', ''));
    this.qos = new QosCgroups({
      fs: opts.fs,
      driver: this.driver,
      pods: this.podsName,
      allocatableMemory: this.allocatable()['memory'] ?? 0,
      ...(memoryReservePercent !== undefined ? { memoryReservePercent } : {}),
    });
    this.pods = new PodCgroups({
      fs: opts.fs,
      qos: this.qos,
      driver: this.driver,
      pods: this.podsName,
      limits: opts.limits,
      logger: opts.logger,
      ...(opts.kill !== undefined ? { kill: opts.kill } : {}),
    });
  }

  /** The pods' top-level cgroup in the driver's spelling (`/kubepods`, `/kubepods.slice`). */
  podsCgroup(): string {
    return driverName(this.podsName, this.driver);
  }

  private allocatable(): Record<string, number> {
    const c = this.opts.config;
    return allocatableOf(
      this.opts.capacity,
      reservedList(c.systemReserved),
      reservedList(c.platReserved),
    );
  }

  /** setupNode: every step in the reference's order; an error stops the agent's start. */
  async start(): Promise<void> {
    const c = this.opts.config;
    if (c.cgroupsPerQOS) await this.createPodsHierarchy();
    for (const e of this.enforcements()) await enforceExistingCgroup(this.opts.fs, this.driver, e);
    if (c.systemCgroups !== '') await this.ensureSystemCgroups();
    if (c.nodeagentCgroups !== '') await this.ensureAgentCgroup();
  }

  private async createPodsHierarchy(): Promise<void> {
    const c = this.opts.config;
    const log = this.opts.logger;
    if (c.cgroupRoot === '')
      log.info(
        {},
        '--cgroups-per-qos enabled, but --cgroup-root was not specified.  defaulting to /',
      );
    const rootPath = driverName(this.root, this.driver);
    const missing = await this.opts.fs.missing(rootPath);
    if (missing.length > 0)
      throw new EnforcementError(
        `invalid configuration: ${missingPathsMessage(this.root, missing)}`,
      );
    log.info(
      { cgroupRoot: rootPath },
      'Container manager verified user specified cgroup-root exists',
    );
    // Allocatable when `pods` is enforced, else capacity: the kernel's default shares are too low.
    const enforce = c.enforceNodeAllocatable.includes('pods');
    const limits = cgroupConfigOf(enforce ? this.allocatable() : { ...this.opts.capacity }, false);
    const path = this.podsCgroup();
    if (await this.opts.fs.exists(path)) await this.opts.fs.update(path, limits);
    else await this.opts.fs.create(path, limits);
    await this.qos?.start();
    log.info(
      {
        cgroup: path,
        cpuShares: limits.cpuShares,
        memory: limits.memory,
        pidsLimit: limits.pidsLimit,
        enforced: enforce,
      },
      enforce
        ? 'Updated Node Allocatable limit across pods'
        : "created the pods' top-level cgroup with the node's capacity",
    );
  }

  private enforcements(): ReservedEnforcement[] {
    const c = this.opts.config;
    const out: ReservedEnforcement[] = [];
    const levels = c.enforceNodeAllocatable;
    const p = this.opts.product;
    if (levels.includes('system-reserved') || levels.includes('system-reserved-compressible')) {
      out.push({
        label: 'System Reserved',
        cgroup: c.systemReservedCgroup,
        reserved: reservedList(c.systemReserved),
        compressibleOnly: !levels.includes('system-reserved'),
      });
    }
    if (
      levels.includes(`${p}-reserved`) ||
      levels.includes(`${p}-reserved-compressible`) ||
      levels.includes('plat-reserved') ||
      levels.includes('plat-reserved-compressible')
    ) {
      const full = levels.includes(`${p}-reserved`) || levels.includes('plat-reserved');
      out.push({
        label: reservedLabel(p),
        cgroup: c.platReservedCgroup,
        reserved: reservedList(c.platReserved),
        compressibleOnly: !full,
      });
    }
    return out;
  }

  private async ensureSystemCgroups(): Promise<void> {
    const name = parseDriverName(this.opts.config.systemCgroups, this.driver);
    if (name.length === 0) throw new EnforcementError('system container cannot be root ("/")');
    const path = driverName(name, this.driver);
    if (!(await this.opts.fs.exists(path))) await this.opts.fs.create(path, {});
    await moveHostProcesses({
      fs: this.opts.fs,
      to: path,
      container: this.opts.config.systemCgroups,
      ...(this.opts.processes !== undefined ? { probe: this.opts.processes } : {}),
    });
    this.opts.logger.info(
      { cgroup: path },
      "moved the host's non-kernel processes into the system cgroup (--system-cgroups)",
    );
  }

  /** ensureProcessInContainerWithOOMScore: the agent's own process into --nodeagent-cgroups. */
  private async ensureAgentCgroup(): Promise<void> {
    const path = driverName(
      parseDriverName(this.opts.config.nodeagentCgroups, this.driver),
      this.driver,
    );
    if (!(await this.opts.fs.exists(path))) await this.opts.fs.create(path, {});
    const pid = this.opts.selfPid ?? process.pid;
    try {
      await this.opts.fs.addProcess(path, pid);
    } catch (err) {
      throw new EnforcementError(
        `failed to move PID ${pid} into the container ` +
          `${JSON.stringify(this.opts.config.nodeagentCgroups)}: ` +
          (err instanceof Error ? err.message : String(err)),
      );
    }
    this.opts.logger.info(
      { cgroup: path, pid },
      'the agent runs in its cgroup (--nodeagent-cgroups)',
    );
  }
}
