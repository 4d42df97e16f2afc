// NUMA affinity masks and topology hints as the reference's topologymanager/bitmask: a mask is a
// sorted list of NUMA node ids; masks are enumerated by size, then in lexicographic order.

export type NumaMask = readonly number[];

export interface TopologyHint {
  /** null: no preference ("any NUMA node"). */
  affinity: NumaMask | null;
  preferred: boolean;
}

export function maskAnd(a: NumaMask, b: NumaMask): NumaMask {
  return a.filter((x) => b.includes(x));
}

/** The mask's value as bits (node n is bit n), for IsLessThan. */
function maskValue(m: NumaMask): bigint {
  return m.reduce((acc, n) => acc | (1n << BigInt(n)), 0n);
}

/** bitmask.IsNarrowerThan: fewer nodes, or as many and a lower value. */
export function isNarrowerThan(a: NumaMask, b: NumaMask): boolean {
  if (a.length === b.length) return maskValue(a) < maskValue(b);
  return a.length < b.length;
}

export function masksEqual(a: NumaMask, b: NumaMask): boolean {
  return a.length === b.length && a.every((x, i) => b[i] === x);
}

/** Every non-empty subset of `nodes`, smallest first (bitmask.IterateBitMasks). */
export function allMasks(nodes: readonly number[]): NumaMask[] {
  const sorted = [...nodes].sort((a, b) => a - b);
  const out: NumaMask[] = [];
  const choose = (start: number, k: number, acc: number[]): void => {
    if (acc.length === k) {
      out.push([...acc]);
      return;
    }
    for (let i = start; i < sorted.length; i++) choose(i + 1, k, [...acc, sorted[i] ?? 0]);
  };
  for (let k = 1; k <= sorted.length; k++) choose(0, k, []);
  return out;
}

export function maskText(m: NumaMask | null): string {
  return m === null ? '<nil>' : m.join(',');
}
