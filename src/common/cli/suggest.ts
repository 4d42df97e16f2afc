// "Did you mean" for unknown flags: a known flag within a small edit distance, a unique flag the
// given name is a prefix of, or our name for a flag spelled the reference's way (kube -> plat).

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  // One flat (a.length + 1) x (b.length + 1) table; at(i, j) is its cell.
  const w = b.length + 1;
  const d = new Array<number>((a.length + 1) * w).fill(0);
  const at = (i: number, j: number): number => d[i * w + j] ?? 0;
  for (let j = 0; j < w; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    d[i * w] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, at(i - 2, j - 2) + 1);
      d[i * w + j] = v;
    }
  }
  return at(a.length, b.length);
}

/** The known name to suggest for `given`, or undefined when none is close enough. */
export function suggestFlag(given: string, known: readonly string[]): string | undefined {
  const g = given.toLowerCase();
  const translated = g.replace(/kubelet/g, 'nodeagent').replace(/kube/g, 'plat');
  if (translated !== g && known.includes(translated)) return translated;
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(g, k);
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  if (best !== undefined && bestD <= 2 && (best.length - bestD) / best.length > 0.4) return best;
  if (g.length >= 4) {
    const prefixed = known.filter((k) => k.startsWith(g));
    if (prefixed.length === 1) return prefixed[0];
  }
  return undefined;
}
