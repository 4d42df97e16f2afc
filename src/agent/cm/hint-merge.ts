// Merging the hint providers' NUMA hints into one, as the reference's topology manager policies:
// every permutation of one hint per resource is ANDed; the best merged hint is preferred over
// not, then the narrowest (or, with prefer-closest-numa-nodes, the one of least average
// distance among equally wide ones). single-numa-node keeps only single-node hints.
import {
  isNarrowerThan,
  maskAnd,
  masksEqual,
  type NumaMask,
  type TopologyHint,
} from './numa-mask.js';

export const TOPOLOGY_POLICIES = ['none', 'best-effort', 'restricted', 'single-numa-node'] as const;
export type TopologyPolicyName = (typeof TOPOLOGY_POLICIES)[number];

export type ProviderHints = Record<string, TopologyHint[] | null> | null;

export interface MergeOptions {
  policy: TopologyPolicyName;
  numaNodes: readonly number[];
  preferClosestNuma: boolean;
  /** distance between two nodes; 10 to itself when the host lists none */
  distance: (a: number, b: number) => number;
}

/**
 * filterProvidersHints: one list per resource; no preference is [{nil, preferred}], no way [{nil,
 * not}].
 */
export function filterProvidersHints(providers: readonly ProviderHints[]): TopologyHint[][] {
  const out: TopologyHint[][] = [];
  for (const p of providers) {
    if (p === null || Object.keys(p).length === 0) {
      out.push([{ affinity: null, preferred: true }]);
      continue;
    }
    for (const hints of Object.values(p)) {
      if (hints === null) out.push([{ affinity: null, preferred: true }]);
      else if (hints.length === 0) out.push([{ affinity: null, preferred: false }]);
      else out.push(hints);
    }
  }
  return out;
}

function permutations(
  lists: readonly TopologyHint[][],
  visit: (p: TopologyHint[]) => void,
  acc: TopologyHint[] = [],
): void {
  if (acc.length === lists.length) {
    visit(acc);
    return;
  }
  for (const h of lists[acc.length] ?? []) permutations(lists, visit, [...acc, h]);
}

function averageDistance(mask: NumaMask, distance: MergeOptions['distance']): number {
  let sum = 0;
  let n = 0;
  for (const a of mask)
    for (const b of mask) {
      sum += distance(a, b);
      n += 1;
    }
  return n === 0 ? 0 : sum / n;
}

function better(
  o: MergeOptions,
  current: TopologyHint | undefined,
  cand: TopologyHint,
): TopologyHint | undefined {
  const ca = cand.affinity ?? [];
  if (ca.length === 0) return current;
  if (current === undefined) return cand;
  if (cand.preferred !== current.preferred) return cand.preferred ? cand : current;
  const cur = current.affinity ?? [];
  if (o.preferClosestNuma && ca.length === cur.length) {
    const dc = averageDistance(ca, o.distance);
    const dk = averageDistance(cur, o.distance);
    if (dc !== dk) return dc < dk ? cand : current;
  }
  return isNarrowerThan(ca, cur) ? cand : current;
}

/** The policy's Merge: the best hint and whether the pod may be admitted with it. */
export function mergeHints(
  o: MergeOptions,
  providers: readonly ProviderHints[],
): { hint: TopologyHint; admit: boolean } {
  let lists = filterProvidersHints(providers);
  if (o.policy === 'single-numa-node') {
    lists = lists.map((l) =>
      l.filter((h) => h.preferred && (h.affinity === null || h.affinity.length === 1)),
    );
  }
  const all = [...o.numaNodes].sort((a, b) => a - b);
  let best: TopologyHint | undefined;
  permutations(lists, (perm) => {
    let affinity: NumaMask = all;
    for (const h of perm) affinity = maskAnd(affinity, h.affinity ?? all);
    best = better(o, best, { affinity, preferred: perm.every((h) => h.preferred) });
  });
  let hint: TopologyHint = best ?? { affinity: all, preferred: false };
  if (o.policy === 'single-numa-node' && hint.affinity !== null && masksEqual(hint.affinity, all))
    hint = { affinity: null, preferred: hint.preferred };
  const admit = o.policy === 'best-effort' || o.policy === 'none' ? true : hint.preferred;
  return { hint, admit };
}
