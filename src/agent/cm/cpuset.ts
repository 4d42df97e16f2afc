// Sets of CPU (or NUMA node) ids in the Linux list format ("0-3,8"), as the reference's
// k8s.io/utils/cpuset: parsed strictly, printed as sorted ranges.

/** The largest CPU id accepted in a list (bounds what a hostile list can make us allocate). */
export const MAX_CPU_ID = 8191;

export class CpuSetParseError extends Error {}

export class CpuSet {
  private readonly ids: readonly number[];

  constructor(ids: Iterable<number> = []) {
    this.ids = [...new Set(ids)].sort((a, b) => a - b);
  }

  /**
   * "0-3,8" → {0,1,2,3,8}; "" → the empty set. Throws CpuSetParseError naming the bad part.
   * `maxId` bounds the ids (the host's CPUs when reading a checkpoint), so no list can make a large
   * set.
   */
  static parse(text: string, maxId = MAX_CPU_ID): CpuSet {
    if (text.trim() === '') return new CpuSet();
    const out = new Set<number>();
    for (const part of text.trim().split(',')) {
      const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(part.trim());
      if (m === null) throw new CpuSetParseError(`"${part}" is not a CPU id or range such as 0-3`);
      const lo = Number(m[1]);
      const hi = m[2] === undefined ? lo : Number(m[2]);
      if (hi < lo) throw new CpuSetParseError(`invalid range "${part}" (${lo} > ${hi})`);
      if (hi > maxId) throw new CpuSetParseError(`CPU id ${hi} in "${part}" is above ${maxId}`);
      for (let i = lo; i <= hi; i++) out.add(i);
    }
    return new CpuSet(out);
  }

  get size(): number {
    return this.ids.length;
  }

  list(): number[] {
    return [...this.ids];
  }

  has(id: number): boolean {
    return this.ids.includes(id);
  }

  union(other: CpuSet): CpuSet {
    return new CpuSet([...this.ids, ...other.ids]);
  }

  difference(other: CpuSet): CpuSet {
    return new CpuSet(this.ids.filter((i) => !other.has(i)));
  }

  intersection(other: CpuSet): CpuSet {
    return new CpuSet(this.ids.filter((i) => other.has(i)));
  }

  isSubsetOf(other: CpuSet): boolean {
    return this.ids.every((i) => other.has(i));
  }

  equals(other: CpuSet): boolean {
    return this.size === other.size && this.isSubsetOf(other);
  }

  /** Sorted ranges: "0-2,5,7-8". */
  toString(): string {
    const parts: string[] = [];
    let i = 0;
    while (i < this.ids.length) {
      const start = this.ids[i] ?? 0;
      let end = start;
      while (this.ids[i + 1] === end + 1) {
        end += 1;
        i += 1;
      }
      parts.push(start === end ? String(start) : `${start}-${end}`);
      i += 1;
    }
    return parts.join(',');
  }
}
