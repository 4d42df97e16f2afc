// Capacity and allocatable: cpu (cores), memory (bytes), pods (--max-pods, or --pods-per-core
// times the cores when smaller), ephemeral-storage (the root directory's file system) and
// hugepages-<size> for each huge page size the kernel offers (pages times size, 0 when none are
// set aside); allocatable is capacity less --system-reserved, --plat-reserved and the hard
// eviction thresholds (memory.available for memory, nodefs.available for ephemeral-storage), and
// memory less the huge pages, never below 0. Bytes are spelt as the reference's quantities
// (the largest power of 1024 that divides them: 8Gi, 24683652Ki).

import { cpus, totalmem } from 'node:os';
import { statfs } from 'node:fs/promises';
import { canonicalize, parseQuantity } from '../../common/util/values/quantity.js';
import { thresholdAmount, type Threshold } from '../eviction/thresholds.js';
import { hostHugePages, type HugePages } from '../runtime/settings/huge-pages.js';

export interface MachineFacts {
  cpuCores: number;
  memoryBytes: number;
  ephemeralStorageBytes: number;
  /** Each huge page size the kernel offers, with the pages set aside (none when unknown). */
  hugePages?: readonly HugePages[];
}

export async function machineFacts(rootDir: string): Promise<MachineFacts> {
  const st = await statfs(rootDir).catch(() => undefined);
  return {
    cpuCores: cpus().length,
    memoryBytes: totalmem(),
    ephemeralStorageBytes: st === undefined ? 0 : st.blocks * st.bsize,
    hugePages: hostHugePages(),
  };
}

export interface ResourceSettings {
  maxPods: number;
  podsPerCore?: number;
  systemReserved?: Readonly<Record<string, string>>;
  platReserved?: Readonly<Record<string, string>>;
  hardThresholds?: readonly Threshold[];
  /**
   * --local-storage-capacity-isolation (default true): false leaves ephemeral-storage out of
   * capacity and allocatable, as the reference's container manager GetCapacity.
   */
  localStorageCapacityIsolation?: boolean;
}

/** Quantities in the reference's canonical spelling for what the agent reports. */
function cpuQuantity(cores: number): string {
  const milli = Math.round(cores * 1000);
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

function bytesQuantity(bytes: number): string {
  return canonicalize(BigInt(Math.max(0, Math.floor(bytes))) * 1_000_000_000n, 'BinarySI');
}

function reservedAmount(
  maps: readonly (Readonly<Record<string, string>> | undefined)[],
  resource: string,
): number {
  let sum = 0;
  for (const m of maps) {
    const v = m?.[resource];
    if (v !== undefined) sum += parseQuantity(v).value;
  }
  return sum;
}

export interface NodeResources {
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
}

export function nodeResources(facts: MachineFacts, s: ResourceSettings): NodeResources {
  let pods = s.maxPods;
  if (s.podsPerCore !== undefined && s.podsPerCore > 0)
    pods = Math.min(pods, s.podsPerCore * facts.cpuCores);
  const reserved = [s.systemReserved, s.platReserved];
  const hard = (signal: string, capacity: number): number =>
    (s.hardThresholds ?? [])
      .filter((t) => t.hard && t.signal === signal)
      .reduce((acc, t) => acc + thresholdAmount(t.value, capacity), 0);
  const cpuAlloc = facts.cpuCores - reservedAmount(reserved, 'cpu');
  const memAlloc =
    facts.memoryBytes -
    reservedAmount(reserved, 'memory') -
    hard('memory.available', facts.memoryBytes);
  const storageAlloc =
    facts.ephemeralStorageBytes -
    reservedAmount(reserved, 'ephemeral-storage') -
    hard('nodefs.available', facts.ephemeralStorageBytes);
  const storage = s.localStorageCapacityIsolation !== false;
  const huge = (facts.hugePages ?? []).map((h) => ({
    name: `hugepages-${bytesQuantity(h.pageBytes)}`,
    bytes: h.pageBytes * h.count,
  }));
  const hugeTotal = huge.reduce((acc, h) => acc + h.bytes, 0);
  return {
    capacity: {
      cpu: cpuQuantity(facts.cpuCores),
      memory: bytesQuantity(facts.memoryBytes),
      pods: String(pods),
      ...(storage ? { 'ephemeral-storage': bytesQuantity(facts.ephemeralStorageBytes) } : {}),
      ...Object.fromEntries(huge.map((h) => [h.name, bytesQuantity(h.bytes)])),
    },
    allocatable: {
      cpu: cpuQuantity(Math.max(0, cpuAlloc)),
      memory: bytesQuantity(Math.max(0, memAlloc) - hugeTotal),
      pods: String(pods),
      ...(storage ? { 'ephemeral-storage': bytesQuantity(storageAlloc) } : {}),
      ...Object.fromEntries(
        huge.map((h) => [h.name, bytesQuantity(h.bytes - reservedAmount(reserved, h.name))]),
      ),
    },
  };
}

/**
 * The hard eviction thresholds node allocatable is reduced by: none with
 * --experimental-allocatable-ignore-eviction, as the reference (which then leaves them out of
 * allocatable but still evicts on them).
 */
export function allocatableThresholds(
  thresholds: readonly Threshold[],
  ignoreEviction: boolean,
): readonly Threshold[] {
  return ignoreEviction ? [] : thresholds;
}
