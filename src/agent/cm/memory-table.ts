// The memory manager's per-NUMA-node accounting (the reference's static policy): the machine
// state at start, and reserving or releasing a block across the nodes of its affinity.
import type { HostTopology } from './host-topology.js';
import type { MemoryBlock, NumaNodeState } from './memory-state.js';

/** hugepages-<size> as the reference names it: 2Mi, 1Gi. */
export function hugepageName(bytes: number): string {
  const gi = 1024 ** 3;
  const mi = 1024 ** 2;
  if (bytes % gi === 0) return `hugepages-${bytes / gi}Gi`;
  if (bytes % mi === 0) return `hugepages-${bytes / mi}Mi`;
  return `hugepages-${bytes / 1024}Ki`;
}

/**
 * getDefaultMachineState: per node, memory (less hugepages and the reservation) and each hugepage
 * size.
 */
export function machineStateOf(
  t: HostTopology,
  reserved: ReadonlyMap<number, ReadonlyMap<string, number>>,
): Map<number, NumaNodeState> {
  const out = new Map<number, NumaNodeState>();
  for (const n of t.numaNodes) {
    const memoryMap: NumaNodeState['memoryMap'] = {};
    let hugepagesTotal = 0;
    for (const [size, pages] of n.hugepages) {
      const name = hugepageName(size);
      const total = size * pages;
      const sys = reserved.get(n.id)?.get(name) ?? 0;
      hugepagesTotal += total;
      memoryMap[name] = {
        total,
        systemReserved: sys,
        allocatable: Math.max(0, total - sys),
        reserved: 0,
        free: Math.max(0, total - sys),
      };
    }
    const sys = reserved.get(n.id)?.get('memory') ?? 0;
    const allocatable = Math.max(0, n.memoryBytes - sys - hugepagesTotal);
    memoryMap['memory'] = {
      total: n.memoryBytes,
      systemReserved: sys,
      allocatable,
      reserved: 0,
      free: allocatable,
    };
    out.set(n.id, { numberOfAssignments: 0, memoryMap, cells: [n.id] });
  }
  return out;
}

/**
 * updateMachineState: takes `size` from the nodes' free memory in order; every node joins the
 * group.
 */
export function reserveOn(
  ms: Map<number, NumaNodeState>,
  affinity: readonly number[],
  type: string,
  size: number,
): void {
  let left = size;
  for (const id of affinity) {
    const node = ms.get(id);
    if (node === undefined) continue;
    node.numberOfAssignments += 1;
    node.cells = [...affinity];
    const t = node.memoryMap[type];
    if (left === 0 || t === undefined || t.free <= 0) continue;
    const take = Math.min(t.free, left);
    t.reserved += take;
    t.free -= take;
    left -= take;
  }
}

/**
 * releaseMemory: gives each block back to its nodes; a node with no assignment left stands alone
 * again.
 */
export function releaseBlocks(
  ms: Map<number, NumaNodeState>,
  blocks: readonly MemoryBlock[],
): void {
  for (const b of blocks) {
    let left = b.size;
    for (const id of b.numaAffinity) {
      const node = ms.get(id);
      if (node === undefined) continue;
      node.numberOfAssignments = Math.max(0, node.numberOfAssignments - 1);
      if (node.numberOfAssignments === 0) node.cells = [id];
      const t = node.memoryMap[b.type];
      if (left === 0 || t === undefined) continue;
      const give = Math.min(t.reserved, left);
      t.reserved -= give;
      t.free += give;
      left -= give;
    }
  }
}
