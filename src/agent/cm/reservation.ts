// --reserved-cpus supersedes the CPU amounts of --system-reserved and --plat-reserved, as the
// reference's server.go does: system-reserved cpu becomes the number of reserved CPUs and
// plat-reserved loses its cpu, so node allocatable and the static policy agree.
import type { NodeAgentConfiguration } from '../config/schema.js';
import { CpuSet } from './cpuset.js';

type Reservations = Pick<NodeAgentConfiguration, 'systemReserved' | 'platReserved'>;

export function reservationsOf(
  c: Reservations & Pick<NodeAgentConfiguration, 'reservedSystemCPUs'>,
): Reservations {
  if (c.reservedSystemCPUs === '')
    return { systemReserved: c.systemReserved, platReserved: c.platReserved };
  let count: number;
  try {
    count = CpuSet.parse(c.reservedSystemCPUs).size;
  } catch {
    // validation refused the value before this is read
    return { systemReserved: c.systemReserved, platReserved: c.platReserved };
  }
  const plat = Object.fromEntries(Object.entries(c.platReserved).filter(([k]) => k !== 'cpu'));
  return { systemReserved: { ...c.systemReserved, cpu: String(count) }, platReserved: plat };
}
