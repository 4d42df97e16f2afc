// Picking CPUs for an exclusive allocation, packed as the reference's takeByTopology does: whole
// free sockets first, then whole free cores, then single CPUs from the fullest cores and sockets,
// so that whole cores stay free for later requests.
import type { CpuInfo } from './host-topology.js';
import { CpuSet } from './cpuset.js';

export class NotEnoughCpusError extends Error {
  constructor(requested: number, available: number) {
    super(
      `not enough cpus available to satisfy request: requested=${requested}, available=` +
        `${available}`,
    );
  }
}

function groupBy(cpus: readonly CpuInfo[], key: (c: CpuInfo) => number): Map<number, CpuInfo[]> {
  const m = new Map<number, CpuInfo[]>();
  for (const c of cpus) m.set(key(c), [...(m.get(key(c)) ?? []), c]);
  return m;
}

/** Groups (sockets or cores) all of whose CPUs are available, lowest id first. */
function freeGroups(
  all: readonly CpuInfo[],
  available: CpuSet,
  key: (c: CpuInfo) => number,
): CpuInfo[][] {
  return [...groupBy(all, key).values()]
    .filter((g) => g.every((c) => available.has(c.id)))
    .sort((a, b) => (a[0]?.id ?? 0) - (b[0]?.id ?? 0));
}

export interface TakeOptions {
  /**
   * Only whole cores (full-pcpus-only): the caller checked the request is a multiple of the core
   * size.
   */
  wholeCoresOnly?: boolean;
}

export function takeByTopology(
  all: readonly CpuInfo[],
  available: CpuSet,
  count: number,
  o: TakeOptions = {},
): CpuSet {
  if (count === 0) return new CpuSet();
  if (available.size < count) throw new NotEnoughCpusError(count, available.size);
  const taken: number[] = [];
  let free = available;
  const take = (ids: readonly number[]): void => {
    taken.push(...ids);
    free = free.difference(new CpuSet(ids));
  };
  for (const key of [(c: CpuInfo) => c.socket, (c: CpuInfo) => c.core]) {
    for (const g of freeGroups(all, free, key)) {
      if (count - taken.length >= g.length && g.every((c) => free.has(c.id)))
        take(g.map((c) => c.id));
    }
  }
  if (taken.length < count && o.wholeCoresOnly === true)
    throw new NotEnoughCpusError(count, available.size);
  const freeIn = (key: (c: CpuInfo) => number, c: CpuInfo): number =>
    all.filter((x) => key(x) === key(c) && free.has(x.id)).length;
  const rest = all
    .filter((c) => free.has(c.id))
    .sort(
      (a, b) =>
        freeIn((x) => x.core, a) - freeIn((x) => x.core, b) ||
        freeIn((x) => x.socket, a) - freeIn((x) => x.socket, b) ||
        a.id - b.id,
    );
  take(rest.slice(0, count - taken.length).map((c) => c.id));
  if (taken.length < count) throw new NotEnoughCpusError(count, available.size);
  return new CpuSet(taken);
}
