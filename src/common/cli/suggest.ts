// "Did you mean" for unknown flags: a known flag within a small edit distance, a unique flag the
// given name is a prefix of, or our name for a flag spelled the reference's way (kube -> plat).

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) d.push([i, ...new Array<number>(b.length).fill(0)]);
  const row0 = d[0];
  if (row0 !== undefined) for (let j = 0; j <= b.length; j++) row0[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    const prev = d[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, (d[i - 2]?.[j - 2] as number) + 1);
      row[j] = v;
    }
  }
  return d[a.length]?.[b.length] ?? Math.max(a.length, b.length);
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
    if (d < bestD) { bestD = d; best = k; }
  }
  if (best !== undefined && bestD <= 2 && (best.length - bestD) / best.length > 0.4) return best;
  if (g.length >= 4) {
    const prefixed = known.filter((k) => k.startsWith(g));
    if (prefixed.length === 1) return prefixed[0];
  }
  return undefined;
}
