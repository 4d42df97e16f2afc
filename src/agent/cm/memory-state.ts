// The memory manager's checkpoint, `memory_manager_state` in the root directory, in the
// reference's format: {"policyName","machineState":{node:{numberOfAssignments,memoryMap:{type:
// {total,systemReserved,allocatable,reserved,free}},cells}},"entries":{pod:{container:[
// {numaAffinity,type,size}]}},"checksum"}.
import { checkpointChecksum, num, str, type SpewValue } from './checkpoint-checksum.js';

export const MEMORY_MANAGER_STATE_FILE = 'memory_manager_state';

export interface MemoryTable {
  total: number;
  systemReserved: number;
  allocatable: number;
  reserved: number;
  free: number;
}

export interface NumaNodeState {
  numberOfAssignments: number;
  memoryMap: Record<string, MemoryTable>;
  cells: number[];
}

export interface MemoryBlock {
  numaAffinity: number[];
  type: string;
  size: number;
}

export interface MemoryState {
  policyName: string;
  machineState: Map<number, NumaNodeState>;
  /** podUID → container → blocks */
  entries: Map<string, Map<string, MemoryBlock[]>>;
}

const u64 = (n: number): SpewValue => num('uint64', n);

function tableSpew(t: MemoryTable): SpewValue {
  return {
    kind: 'ptr',
    value: {
      kind: 'struct',
      type: 'state.MemoryTable',
      fields: [
        ['TotalMemSize', u64(t.total)],
        ['SystemReserved', u64(t.systemReserved)],
        ['Allocatable', u64(t.allocatable)],
        ['Reserved', u64(t.reserved)],
        ['Free', u64(t.free)],
      ],
    },
  };
}

function nodeSpew(n: NumaNodeState): SpewValue {
  return {
    kind: 'ptr',
    value: {
      kind: 'struct',
      type: 'state.NUMANodeState',
      fields: [
        ['NumberOfAssignments', num('int', n.numberOfAssignments)],
        [
          'MemoryMap',
          {
            kind: 'map',
            type: 'map[v1.ResourceName]*state.MemoryTable',
            entries: Object.entries(n.memoryMap).map(([k, t]) => [k, tableSpew(t)] as const),
          },
        ],
        ['Cells', { kind: 'slice', type: '[]int', items: n.cells.map((c) => num('int', c)) }],
      ],
    },
  };
}

function blockSpew(b: MemoryBlock): SpewValue {
  return {
    kind: 'struct',
    type: 'state.Block',
    fields: [
      [
        'NUMAAffinity',
        { kind: 'slice', type: '[]int', items: b.numaAffinity.map((c) => num('int', c)) },
      ],
      ['Type', str('v1.ResourceName', b.type)],
      ['Size', u64(b.size)],
    ],
  };
}

function checkpointSpew(s: MemoryState): SpewValue {
  const entries = [...s.entries].map(
    ([pod, row]) =>
      [
        pod,
        {
          kind: 'map',
          type: 'map[string][]state.Block',
          entries: [...row].map(
            ([name, blocks]) =>
              [
                name,
                { kind: 'slice', type: '[]state.Block', items: blocks.map(blockSpew) },
              ] as const,
          ),
        },
      ] as const,
  );
  return {
    kind: 'ptr',
    value: {
      kind: 'struct',
      type: 'state.MemoryManagerCheckpoint',
      fields: [
        ['PolicyName', str('string', s.policyName)],
        [
          'MachineState',
          {
            kind: 'map',
            type: 'state.NUMANodeMap',
            entries: [...s.machineState].map(([id, n]) => [id, nodeSpew(n)] as const),
          },
        ],
        ['Entries', { kind: 'map', type: 'state.ContainerMemoryAssignments', entries }],
        ['Checksum', num('checksum.Checksum', 0)],
      ],
    },
  };
}

function sortedObject<T>(
  m: Iterable<[string | number, T]>,
  map: (v: T) => unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of [...m].sort(([a], [b]) => (String(a) < String(b) ? -1 : 1)))
    out[String(k)] = map(v);
  return out;
}

export function encodeMemoryState(s: MemoryState): string {
  const machineState = sortedObject(s.machineState, (n) => ({
    numberOfAssignments: n.numberOfAssignments,
    memoryMap: sortedObject(Object.entries(n.memoryMap), (t) => t),
    cells: n.cells,
  }));
  const entries = sortedObject(s.entries, (row) => sortedObject(row, (blocks) => blocks));
  return JSON.stringify({
    policyName: s.policyName,
    machineState,
    ...(s.entries.size > 0 ? { entries } : {}),
    checksum: checkpointChecksum(checkpointSpew(s)),
  });
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const isUint = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isIntList = (v: unknown): v is number[] =>
  Array.isArray(v) && v.every((x) => Number.isInteger(x));

function decodeTable(v: unknown, where: string): MemoryTable {
  if (!isObj(v)) throw new Error(`${where} is not an object`);
  const t = {
    total: v['total'],
    systemReserved: v['systemReserved'],
    allocatable: v['allocatable'],
    reserved: v['reserved'],
    free: v['free'],
  };
  for (const [k, x] of Object.entries(t))
    if (!isUint(x ?? 0)) throw new Error(`${where}.${k} is not a non-negative integer`);
  return {
    total: Number(t.total ?? 0),
    systemReserved: Number(t.systemReserved ?? 0),
    allocatable: Number(t.allocatable ?? 0),
    reserved: Number(t.reserved ?? 0),
    free: Number(t.free ?? 0),
  };
}

function decodeNode(v: unknown, id: string): NumaNodeState {
  if (!isObj(v)) throw new Error(`machineState.${id} is not an object`);
  const map = v['memoryMap'] ?? {};
  if (!isObj(map)) throw new Error(`machineState.${id}.memoryMap is not an object`);
  const cells = v['cells'] ?? [];
  if (!isIntList(cells)) throw new Error(`machineState.${id}.cells is not a list of NUMA node ids`);
  const n = v['numberOfAssignments'] ?? 0;
  if (!Number.isInteger(n))
    throw new Error(`machineState.${id}.numberOfAssignments is not an integer`);
  const memoryMap: Record<string, MemoryTable> = {};
  for (const [k, t] of Object.entries(map))
    memoryMap[k] = decodeTable(t, `machineState.${id}.memoryMap.${k}`);
  return { numberOfAssignments: Number(n), memoryMap, cells };
}

function decodeBlocks(v: unknown, where: string): MemoryBlock[] {
  if (!Array.isArray(v)) throw new Error(`${where} is not a list of blocks`);
  return v.map((b, i) => {
    if (
      !isObj(b) ||
      !isIntList(b['numaAffinity']) ||
      typeof b['type'] !== 'string' ||
      !isUint(b['size'])
    )
      throw new Error(`${where}[${i}] is not a block {numaAffinity, type, size}`);
    return { numaAffinity: b['numaAffinity'], type: b['type'], size: b['size'] };
  });
}

/** The state in a checkpoint's JSON value; throws with the reference's reason. */
export function decodeMemoryState(value: unknown, configuredPolicy: string): MemoryState {
  if (!isObj(value)) throw new Error('checkpoint is not a JSON object');
  const policyName = typeof value['policyName'] === 'string' ? value['policyName'] : '';
  const ms = value['machineState'] ?? {};
  const en = value['entries'] ?? {};
  if (!isObj(ms) || !isObj(en))
    throw new Error('checkpoint machineState and entries must be objects');
  const machineState = new Map<number, NumaNodeState>();
  for (const [id, n] of Object.entries(ms)) {
    if (!/^\d{1,4}$/.test(id)) throw new Error(`machineState key "${id}" is not a NUMA node id`);
    machineState.set(Number(id), decodeNode(n, id));
  }
  const entries = new Map<string, Map<string, MemoryBlock[]>>();
  for (const [pod, row] of Object.entries(en)) {
    if (!isObj(row)) throw new Error(`entries.${pod} is not an object`);
    entries.set(
      pod,
      new Map(
        Object.entries(row).map(([name, blocks]) => [
          name,
          decodeBlocks(blocks, `entries.${pod}.${name}`),
        ]),
      ),
    );
  }
  const state: MemoryState = { policyName, machineState, entries };
  const checksum = value['checksum'];
  if (checksum !== undefined && typeof checksum !== 'number')
    throw new Error('checkpoint checksum is not a number');
  if (
    checksum !== undefined &&
    checksum !== 0 &&
    checksum !== checkpointChecksum(checkpointSpew(state))
  )
    throw new Error('checkpoint is corrupted');
  if (policyName !== configuredPolicy)
    throw new Error(
      `[memorymanager] configured policy "${configuredPolicy}" differs from state ` +
        `checkpoint policy "${policyName}"`,
    );
  return state;
}

export function memoryRestoreError(reason: string, path: string): string {
  return (
    `could not restore state from checkpoint: ${reason}, please drain this node and ` +
    `delete the memory manager checkpoint file "${path}" before restarting Kubelet`
  );
}
