// The host's CPU and NUMA layout read from sysfs (the root is injected, so tests use a fake tree):
// /sys/devices/system/cpu/online, cpu<N>/topology/{core_id,physical_package_id},
// /sys/devices/system/node/node<N>/{cpulist,meminfo,distance} and
// /sys/devices/system/node/node<N>/hugepages/hugepages-<size>kB/nr_hugepages.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CpuSet } from './cpuset.js';

export interface CpuInfo {
  id: number;
  /** physical_package_id */
  socket: number;
  /** core_id, made unique per socket as the reference's topology does */
  core: number;
  numa: number;
}

export interface NumaNode {
  id: number;
  cpus: CpuSet;
  memoryBytes: number;
  /** hugepage size in bytes → pages on this node */
  hugepages: Map<number, number>;
  /** distance to each node id (from node<N>/distance), when the host lists them */
  distances: Map<number, number>;
}

export interface HostTopology {
  cpus: CpuInfo[];
  numaNodes: NumaNode[];
  /** false when sysfs has no node<N> directories: one node 0 is assumed (said at start) */
  numaFromSysfs: boolean;
}

const MAX_SYSFS_FILE = 64 * 1024;

function readSmall(path: string): string | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    return text.length > MAX_SYSFS_FILE ? text.slice(0, MAX_SYSFS_FILE) : text;
  } catch {
    return undefined;
  }
}

function readInt(path: string, fallback: number): number {
  const t = readSmall(path)?.trim();
  return t !== undefined && /^\d{1,9}$/.test(t) ? Number(t) : fallback;
}

function listDir(path: string, re: RegExp): number[] {
  try {
    return readdirSync(path)
      .map((n) => re.exec(n)?.[1])
      .filter((x): x is string => x !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  } catch {
    return [];
  }
}

function onlineCpus(root: string, fallbackCount: number): CpuSet {
  const text = readSmall(join(root, 'devices/system/cpu/online'));
  try {
    if (text !== undefined) return CpuSet.parse(text);
  } catch {
    // fall through to the directory listing
  }
  const listed = listDir(join(root, 'devices/system/cpu'), /^cpu(\d+)$/);
  return new CpuSet(
    listed.length > 0 ? listed : Array.from({ length: fallbackCount }, (_, i) => i),
  );
}

/** "Node 0 MemTotal:  16318412 kB" → bytes. */
function nodeMemory(root: string, id: number): number {
  const m = /MemTotal:\s+(\d+)\s*kB/.exec(
    readSmall(join(root, `devices/system/node/node${id}/meminfo`)) ?? '',
  );
  return m?.[1] !== undefined ? Number(m[1]) * 1024 : 0;
}

function nodeHugepages(root: string, id: number): Map<number, number> {
  const dir = join(root, `devices/system/node/node${id}/hugepages`);
  const out = new Map<number, number>();
  for (const kb of listDir(dir, /^hugepages-(\d+)kB$/))
    out.set(kb * 1024, readInt(join(dir, `hugepages-${kb}kB/nr_hugepages`), 0));
  return out;
}

function nodeDistances(root: string, id: number, ids: readonly number[]): Map<number, number> {
  const fields = (readSmall(join(root, `devices/system/node/node${id}/distance`)) ?? '')
    .trim()
    .split(/\s+/);
  const out = new Map<number, number>();
  if (fields.length !== ids.length) return out;
  ids.forEach((other, i) => {
    const d = Number(fields[i]);
    if (Number.isInteger(d)) out.set(other, d);
  });
  return out;
}

export interface ReadTopologyOptions {
  sysfsRoot: string;
  /** Used when sysfs lists no CPUs (os.cpus().length). */
  cpuCount: number;
  /** Used for node 0 when sysfs has no NUMA nodes (os.totalmem()). */
  memoryBytes: number;
}

export function readHostTopology(o: ReadTopologyOptions): HostTopology {
  const online = onlineCpus(o.sysfsRoot, o.cpuCount);
  const nodeIds = listDir(join(o.sysfsRoot, 'devices/system/node'), /^node(\d+)$/);
  const numaOf = new Map<number, number>();
  const numaNodes: NumaNode[] = nodeIds.map((id) => {
    let cpus: CpuSet;
    try {
      cpus = CpuSet.parse(
        readSmall(join(o.sysfsRoot, `devices/system/node/node${id}/cpulist`)) ?? '',
      ).intersection(online);
    } catch {
      cpus = new CpuSet();
    }
    for (const c of cpus.list()) numaOf.set(c, id);
    return {
      id,
      cpus,
      memoryBytes: nodeMemory(o.sysfsRoot, id),
      hugepages: nodeHugepages(o.sysfsRoot, id),
      distances: nodeDistances(o.sysfsRoot, id, nodeIds),
    };
  });
  const numaFromSysfs = numaNodes.length > 0;
  if (!numaFromSysfs)
    numaNodes.push({
      id: 0,
      cpus: online,
      memoryBytes: o.memoryBytes,
      hugepages: new Map(),
      distances: new Map([[0, 10]]),
    });
  const cpus = online.list().map((id) => {
    const topo = join(o.sysfsRoot, `devices/system/cpu/cpu${id}/topology`);
    const socket = readInt(join(topo, 'physical_package_id'), 0);
    const coreId = readInt(join(topo, 'core_id'), id);
    return { id, socket, core: socket * 100_000 + coreId, numa: numaOf.get(id) ?? 0 };
  });
  return { cpus, numaNodes, numaFromSysfs };
}

export function allCpus(t: HostTopology): CpuSet {
  return new CpuSet(t.cpus.map((c) => c.id));
}

export function socketCount(t: HostTopology): number {
  return new Set(t.cpus.map((c) => c.socket)).size;
}

/** Hardware threads per core (1 without SMT), as the reference's CPUsPerCore. */
export function cpusPerCore(t: HostTopology): number {
  const cores = new Set(t.cpus.map((c) => c.core)).size;
  return cores === 0 ? 1 : Math.max(1, Math.floor(t.cpus.length / cores));
}
