// Node allocatable on cgroups, as the reference's node container manager
// (node_container_manager_linux.go): the pods' top-level cgroup limited to capacity less the
// reservations when `pods` is enforced (to capacity otherwise, so its CPU shares are not the
// kernel's low default), and the existing --system-reserved-cgroup / --plat-reserved-cgroup
// limited to their reservations (only CPU shares for the -compressible levels).
import { parseQuantity } from '../../common/util/values/quantity.js';
import type { CgroupFs } from './cgroup-fs.js';
import { cgroupConfigOf } from './resources.js';
import { driverName, parseDriverName, type CgroupDriver } from './names.js';

export interface NodeCapacity {
  /** Cores. */
  cpu: number;
  /** Bytes. */
  memory: number;
  /** /proc/sys/kernel/pid_max */
  pid: number;
}

export type ResourceList = Record<string, number>;

/** A reserved-resource map (`cpu=500m,memory=1Gi,pid=100`) in cores, bytes and counts. */
export function reservedList(m: Readonly<Record<string, string>>): ResourceList {
  const out: ResourceList = {};
  for (const k of ['cpu', 'memory', 'pid'] as const) {
    const v = m[k];
    if (v !== undefined) out[k] = parseQuantity(v).value;
  }
  return out;
}

/** getNodeAllocatableAbsoluteImpl: capacity less both reservations, never below 0. */
export function allocatableOf(
  capacity: NodeCapacity,
  systemReserved: ResourceList,
  platReserved: ResourceList,
): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(capacity) as [string, number][]) {
    out[k] = Math.max(0, v - (systemReserved[k] ?? 0) - (platReserved[k] ?? 0));
  }
  return out;
}

export interface ReservedEnforcement {
  /** The level's name for the messages: "System Reserved" or the reference's "Kube Reserved". */
  label: string;
  /** The cgroup as given (--system-reserved-cgroup). */
  cgroup: string;
  reserved: ResourceList;
  compressibleOnly: boolean;
}

/** Thrown when an enforced level cannot be applied; the agent does not start (as the reference). */
export class EnforcementError extends Error {}

/** enforceExistingCgroup: the cgroup must exist; it gets the reservation as its limits. */
export async function enforceExistingCgroup(
  fs: CgroupFs,
  driver: CgroupDriver,
  e: ReservedEnforcement,
): Promise<void> {
  const name = parseDriverName(e.cgroup, driver);
  const path = driverName(name, driver);
  const missing = await fs.missing(path);
  if (missing.length > 0) {
    throw new EnforcementError(
      `Failed to enforce ${e.label} Cgroup Limits on ${JSON.stringify(e.cgroup)}: ` +
        missingPathsMessage(name, missing),
    );
  }
  try {
    await fs.update(path, cgroupConfigOf(e.reserved, e.compressibleOnly));
  } catch (err) {
    throw new EnforcementError(
      `Failed to enforce ${e.label} Cgroup Limits on ${JSON.stringify(e.cgroup)}: ` +
        (err instanceof Error ? err.message : String(err)),
    );
  }
}

/**
 * The reference's Validate message: `cgroup ["a" "b"] has some missing paths: <dirs>` (Go's %q of a
 * []string).
 */
export function missingPathsMessage(name: readonly string[], missing: readonly string[]): string {
  return (
    `cgroup [${name.map((n) => JSON.stringify(n)).join(' ')}] has some missing paths: ` +
    missing.join(', ')
  );
}
