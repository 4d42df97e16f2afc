// Builds the cgroup part from the configuration and the host, and says once at start what this
// host cannot do (option, reason, effect): no write access to the cgroup file system (not root,
// a read-only mount), an unknown cgroup version, cgroup v2 controllers that are not available,
// the systemd driver without a systemd connection, --runtime-cgroups.
import { access, constants, readFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { errnoCode } from '../../common/util/errno.js';
import type { Logger } from '../../common/log/types.js';
import { detectCgroupVersion } from '../cli/host-checks.js';
import type { HostNote } from '../runtime/settings/from-config.js';
import { CgroupFs, V2_CONTROLLERS } from './cgroup-fs.js';
import type { NodeCapacity } from './node-allocatable.js';
import { NodeCgroups, type NodeCgroupsConfig } from './node-cgroups.js';
import type { PodLimitSettings } from './resources.js';
import type { PodCgroupPlacement } from './pod-cgroups.js';
import { RootPlacement } from './root-placement.js';

export interface CgroupSetupOptions {
  config: NodeCgroupsConfig;
  /** --runtime-cgroups */
  runtimeCgroups: string;
  product: string;
  limits: PodLimitSettings;
  logger: Logger;
  /** Default /sys/fs/cgroup. */
  mount?: string;
  /** Default: detected from the mount. */
  version?: 'v1' | 'v2' | 'unknown';
  capacity?: NodeCapacity;
  /** Default /proc (pid_max). */
  proc?: string;
}

export interface CgroupSetup {
  /** Undefined when the host cannot, or no option asks for, any cgroup work. */
  cgroups: NodeCgroups | undefined;
  /**
   * Where the runtimes put pods: the pod cgroups, or --cgroup-root alone without --cgroups-per-qos.
   */
  placement: PodCgroupPlacement | undefined;
  notes: HostNote[];
}

const CGROUP_OPTIONS = [
  '--cgroups-per-qos',
  '--enforce-node-allocatable',
  '--system-cgroups',
  '--nodeagent-cgroups',
] as const;

function wanted(c: NodeCgroupsConfig): boolean {
  const levels = c.enforceNodeAllocatable.filter((l) => l !== 'none' && l !== 'pods');
  return (
    c.cgroupsPerQOS || levels.length > 0 || c.systemCgroups !== '' || c.nodeagentCgroups !== ''
  );
}

async function writable(dir: string): Promise<string | undefined> {
  try {
    await access(dir, constants.W_OK);
    return undefined;
  } catch (err) {
    return (
      `${dir} is not writable by the agent (${errnoCode(err) ?? String(err)}: run it as ` +
      `root on a read-write cgroup mount)`
    );
  }
}

async function pidMax(proc: string): Promise<number> {
  const n = Number(
    (await readFile(join(proc, 'sys', 'kernel', 'pid_max'), 'utf8').catch(() => '')).trim(),
  );
  return Number.isFinite(n) && n > 0 ? n : 4194304;
}

/** Why this host cannot run the hierarchy at all, or undefined when it can. */
async function blocker(
  mount: string,
  version: 'v1' | 'v2' | 'unknown',
): Promise<string | undefined> {
  if (version === 'unknown') return `no cgroup file system is mounted at ${mount}`;
  return writable(version === 'v1' ? join(mount, 'cpu') : mount);
}

async function v2MissingControllers(mount: string): Promise<string[]> {
  const have = (await readFile(join(mount, 'cgroup.controllers'), 'utf8').catch(() => '')).split(
    /\s+/,
  );
  return ['cpu', 'memory', 'pids'].filter(
    (c) => V2_CONTROLLERS.some((known) => known === c) && !have.includes(c),
  );
}

const RUNTIME_CGROUPS_NOTE =
  'the reference 1.32 moves no runtime process (the runtime is a CRI service it does ' +
  "not start); it names the runtime's cgroup only for the systemContainers of " +
  '/stats/summary, which nodeagent does not report';

/** Without --cgroups-per-qos, pods are still placed under --cgroup-root when one is given. */
function rootPlacement(c: CgroupSetupOptions['config']): RootPlacement | undefined {
  if (c.cgroupsPerQOS || c.cgroupRoot === '') return undefined;
  return new RootPlacement({
    cgroupRoot: c.cgroupRoot,
    driver: c.cgroupDriver === 'systemd' ? 'systemd' : 'cgroupfs',
  });
}

/** Every cgroup option, when no cgroup can be made at all (`reason`). */
function noCgroupNotes(c: CgroupSetupOptions['config'], reason: string): HostNote[] {
  return CGROUP_OPTIONS.filter((opt) => opt !== '--cgroups-per-qos' || c.cgroupsPerQOS).map(
    (option) => ({
      option,
      reason,
      effect:
        "no cgroup is created or limited: pods run in the container runtime's default " +
        'cgroups without pod or QoS cgroups, and node allocatable is not enforced on cgroups',
    }),
  );
}

/** What the cgroups made on this host lack: v2 controllers, and systemd's own management. */
async function partialNotes(
  o: CgroupSetupOptions,
  mount: string,
  version: 'v1' | 'v2',
): Promise<HostNote[]> {
  const notes: HostNote[] = [];
  const missing = version === 'v2' ? await v2MissingControllers(mount) : [];
  if (missing.length > 0)
    notes.push({
      option: '--cgroups-per-qos',
      reason: `the cgroup v2 controllers ${missing.join(', ')} are not available at ${mount}`,
      effect: 'the pod and QoS cgroups get no limits of those controllers',
    });
  if (o.config.cgroupDriver === 'systemd')
    notes.push({
      option: '--cgroup-driver=systemd',
      reason: 'this version has no systemd D-Bus connection',
      effect:
        `the agent writes the slices (${o.product}pods.slice and below) directly in the ` +
        `cgroup file system; systemd does not manage them`,
    });
  return notes;
}

export async function setupCgroups(o: CgroupSetupOptions): Promise<CgroupSetup> {
  const c = o.config;
  const notes: HostNote[] = [];
  if (o.runtimeCgroups !== '')
    notes.push({
      option: '--runtime-cgroups',
      reason: RUNTIME_CGROUPS_NOTE,
      effect: `the container runtime stays in its own cgroup; ${o.runtimeCgroups} is not used`,
    });
  const root = rootPlacement(c);
  if (!wanted(c)) return { cgroups: undefined, placement: root, notes };
  const mount = o.mount ?? '/sys/fs/cgroup';
  const version = o.version ?? (await detectCgroupVersion(mount));
  const why = await blocker(mount, version);
  if (why !== undefined || version === 'unknown') {
    notes.push(...noCgroupNotes(c, why ?? 'unknown cgroup version'));
    return { cgroups: undefined, placement: root, notes };
  }
  notes.push(...(await partialNotes(o, mount, version)));
  const capacity = o.capacity ?? {
    cpu: cpus().length,
    memory: totalmem(),
    pid: await pidMax(o.proc ?? '/proc'),
  };
  const cgroups = new NodeCgroups({
    config: c,
    fs: new CgroupFs({ mount, version }),
    product: o.product,
    limits: o.limits,
    capacity,
    logger: o.logger,
  });
  return { cgroups, placement: cgroups.pods ?? root, notes };
}

/** The reference (dockershim) refused to start when its cgroup driver and Docker's differ. */
export function driverMismatchMessage(agentWord: string, ours: string, docker: string): string {
  return (
    `misconfiguration: ${agentWord} cgroup driver: ${JSON.stringify(ours)} is different ` +
    `from docker cgroup driver: ${JSON.stringify(docker)}`
  );
}
