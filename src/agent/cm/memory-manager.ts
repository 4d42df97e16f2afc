// The memory manager (--memory-manager-policy): with `Static`, the memory (and hugepages) of
// Guaranteed pods' containers is reserved on the NUMA nodes the topology manager aligned them to,
// and the containers may use only those nodes (cpuset.mems). The machine state per NUMA node
// (total, systemReserved from --reserved-memory, allocatable, reserved, free) and the containers'
// blocks live in memory_manager_state, as the reference's static policy keeps them.
import { join } from 'node:path';
import type { Logger } from '../../common/log/types.js';
import type { Container, Pod } from '../pod/types.js';
import { CheckpointWriter, readCheckpoint } from './checkpoint-file.js';
import type { HostTopology } from './host-topology.js';
import {
  decodeMemoryState,
  encodeMemoryState,
  MEMORY_MANAGER_STATE_FILE,
  memoryRestoreError,
  type MemoryBlock,
  type MemoryState,
  type NumaNodeState,
} from './memory-state.js';
import { allMasks, isNarrowerThan, type NumaMask, type TopologyHint } from './numa-mask.js';
import { memoryRequests, podMemoryRequests } from './requests.js';
import { machineStateOf, releaseBlocks, reserveOn } from './memory-table.js';

export interface MemoryManagerOptions {
  policy: 'None' | 'Static';
  topology: HostTopology;
  /** --reserved-memory: NUMA node → type → bytes */
  reserved: ReadonlyMap<number, ReadonlyMap<string, number>>;
  rootDir: string;
  logger: Logger;
}

type Requests = ReadonlyMap<string, number>;

export class MemoryManager {
  private state: MemoryState;
  private readonly writer: CheckpointWriter;
  readonly statePath: string;

  constructor(private readonly o: MemoryManagerOptions) {
    this.statePath = join(o.rootDir, MEMORY_MANAGER_STATE_FILE);
    this.writer = new CheckpointWriter({ path: this.statePath, logger: o.logger });
    this.state = { policyName: o.policy, machineState: new Map(), entries: new Map() };
  }

  start(): void {
    try {
      const value = readCheckpoint(this.statePath);
      if (value !== undefined) this.state = decodeMemoryState(value, this.o.policy);
    } catch (err) {
      throw new Error(
        memoryRestoreError(err instanceof Error ? err.message : String(err), this.statePath),
      );
    }
    if (this.o.policy === 'Static') this.validateState();
    this.save();
  }

  /** The static policy's validateState: the checkpoint's accounting must match this host. */
  private validateState(): void {
    const fresh = machineStateOf(this.o.topology, this.o.reserved);
    if (this.state.machineState.size === 0) {
      if (this.state.entries.size > 0)
        throw new Error(
          '[memorymanager] machine state can not be empty when it has memory assignments',
        );
      this.state.machineState = fresh;
      return;
    }
    for (const row of this.state.entries.values())
      for (const blocks of row.values())
        for (const b of blocks) reserveOn(fresh, b.numaAffinity, b.type, b.size);
    if (!sameAccounting(fresh, this.state.machineState))
      throw new Error('[memorymanager] the expected machine state is different from the real one');
  }

  private save(): void {
    this.writer.write(encodeMemoryState(this.state));
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }

  machineState(): ReadonlyMap<number, NumaNodeState> {
    return this.state.machineState;
  }

  blocks(podUid: string, name: string): MemoryBlock[] | undefined {
    return this.state.entries.get(podUid)?.get(name);
  }

  /** The NUMA nodes a container's memory is pinned to; undefined when it has none. */
  numaNodesFor(pod: Pod, c: Container): number[] | undefined {
    const blocks = this.blocks(pod.metadata.uid, c.name);
    if (blocks === undefined || blocks.length === 0) return undefined;
    return [...new Set(blocks.flatMap((b) => b.numaAffinity))].sort((a, b) => a - b);
  }

  containerHints(pod: Pod, c: Container): Record<string, TopologyHint[] | null> | null {
    if (this.o.policy !== 'Static') return null;
    const req = memoryRequests(pod, c);
    if (req.size === 0) return null;
    const have = this.blocks(pod.metadata.uid, c.name);
    if (have !== undefined) return hintsFromBlocks(have);
    return this.calculateHints(req);
  }

  podHints(pod: Pod): Record<string, TopologyHint[] | null> | null {
    if (this.o.policy !== 'Static') return null;
    const req = podMemoryRequests(pod);
    if (req.size === 0) return null;
    const row = this.state.entries.get(pod.metadata.uid);
    if (row !== undefined) return hintsFromBlocks([...row.values()].flat());
    return this.calculateHints(req);
  }

  private canUse(mask: NumaMask): boolean {
    const ms = this.state.machineState;
    const single = mask.length === 1;
    if (single) return (ms.get(mask[0] ?? 0)?.cells.length ?? 0) <= 1;
    return mask.every((id) => {
      const n = ms.get(id);
      if (n === undefined || n.numberOfAssignments === 0) return true;
      return (
        n.cells.length > 1 &&
        n.cells.length === mask.length &&
        n.cells.every((x) => mask.includes(x))
      );
    });
  }

  private sum(mask: NumaMask, type: string, field: 'free' | 'allocatable'): number {
    return mask.reduce(
      (acc, id) => acc + (this.state.machineState.get(id)?.memoryMap[type]?.[field] ?? 0),
      0,
    );
  }

  /** calculateHints: masks with enough allocatable and free memory of every requested type. */
  private calculateHints(req: Requests): Record<string, TopologyHint[]> {
    const masks: NumaMask[] = [];
    let minSize = this.state.machineState.size;
    for (const mask of allMasks([...this.state.machineState.keys()])) {
      if ([...req].some(([t, size]) => this.sum(mask, t, 'allocatable') < size)) continue;
      if (mask.length < minSize) minSize = mask.length;
      if (!this.canUse(mask)) continue;
      if ([...req].some(([t, size]) => this.sum(mask, t, 'free') < size)) continue;
      masks.push(mask);
    }
    const out: Record<string, TopologyHint[]> = {};
    for (const t of req.keys())
      out[t] = masks.map((affinity) => ({ affinity, preferred: affinity.length === minSize }));
    return out;
  }

  /** The static policy's Allocate: reserves the container's memory on the hint's nodes. */
  allocate(pod: Pod, c: Container, hint: TopologyHint): void {
    if (this.o.policy !== 'Static') return;
    const req = memoryRequests(pod, c);
    if (req.size === 0 || this.blocks(pod.metadata.uid, c.name) !== undefined) return;
    let affinity = hint.affinity;
    if (
      affinity === null ||
      [...req].some(([t, size]) => this.sum(affinity ?? [], t, 'free') < size)
    ) {
      const best = bestHint(
        this.calculateHints(req)['memory'] ?? Object.values(this.calculateHints(req))[0] ?? [],
        affinity,
      );
      if (best === undefined) {
        throw new Error(
          affinity === null
            ? '[memorymanager] failed to get the default NUMA affinity, no NUMA nodes ' +
                'with enough memory is available'
            : '[memorymanager] failed to find NUMA nodes to extend the current topology hint',
        );
      }
      if (!best.preferred && hint.preferred)
        throw new Error(
          affinity === null
            ? '[memorymanager] failed to find the default preferred hint'
            : '[memorymanager] failed to find the extended preferred hint',
        );
      affinity = best.affinity;
    }
    const mask = [...(affinity ?? [])];
    const blocks = [...req].map(([type, size]) => ({ numaAffinity: mask, type, size }));
    for (const b of blocks) reserveOn(this.state.machineState, b.numaAffinity, b.type, b.size);
    const row = this.state.entries.get(pod.metadata.uid) ?? new Map<string, MemoryBlock[]>();
    row.set(c.name, blocks);
    this.state.entries.set(pod.metadata.uid, row);
    this.o.logger.info(
      {
        pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
        container: c.name,
        numaNodes: mask.join(','),
      },
      'memory reserved on NUMA nodes',
    );
    this.save();
  }

  removePod(podUid: string): void {
    const row = this.state.entries.get(podUid);
    if (row === undefined) return;
    for (const blocks of row.values()) releaseBlocks(this.state.machineState, blocks);
    this.state.entries.delete(podUid);
    this.save();
  }

  removeStale(activeUids: ReadonlySet<string>): void {
    for (const uid of [...this.state.entries.keys()]) if (!activeUids.has(uid)) this.removePod(uid);
  }
}

function hintsFromBlocks(blocks: readonly MemoryBlock[]): Record<string, TopologyHint[]> {
  const out: Record<string, TopologyHint[]> = {};
  for (const b of blocks) out[b.type] = [{ affinity: b.numaAffinity, preferred: true }];
  return out;
}

/** Preferred first, then the narrowest; with a current mask, only masks that include it. */
function bestHint(
  hints: readonly TopologyHint[],
  including: NumaMask | null,
): TopologyHint | undefined {
  let best: TopologyHint | undefined;
  for (const h of hints) {
    if (
      h.affinity === null ||
      (including !== null && !including.every((x) => h.affinity?.includes(x)))
    )
      continue;
    if (
      best === undefined ||
      (h.preferred && !best.preferred) ||
      (h.preferred === best.preferred && isNarrowerThan(h.affinity, best.affinity ?? []))
    )
      best = h;
  }
  return best;
}

function sameAccounting(
  a: ReadonlyMap<number, NumaNodeState>,
  b: ReadonlyMap<number, NumaNodeState>,
): boolean {
  if (a.size !== b.size) return false;
  const totals = (m: ReadonlyMap<number, NumaNodeState>): Map<string, string> => {
    const t = new Map<string, string>();
    for (const n of m.values())
      for (const [type, x] of Object.entries(n.memoryMap)) {
        const [free, reserved, total] = (t.get(type) ?? '0/0/0').split('/').map(Number);
        t.set(
          type,
          `${(free ?? 0) + x.free}/${(reserved ?? 0) + x.reserved}/${(total ?? 0) + x.total}`,
        );
      }
    return t;
  };
  const ta = totals(a);
  const tb = totals(b);
  return ta.size === tb.size && [...ta].every(([k, v]) => tb.get(k) === v);
}
