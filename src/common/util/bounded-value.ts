// Measuring a parsed value without recursion: its nesting and the number of values it holds, so
// code that builds values (alias expansion, JSON patch copies) can keep them within ParseLimits.

export interface ValueSize {
  /** Nesting of objects and arrays (a scalar is 0, `{}` is 1). */
  readonly depth: number;
  /** Values reached, objects and arrays included; stops counting past `budget`. */
  readonly nodes: number;
}

/** Walks `value` with an explicit stack, at most `budget` + 1 values. */
export function measureValue(value: unknown, budget: number): ValueSize {
  let nodes = 0;
  let depth = 0;
  const stack: { v: unknown; d: number }[] = [{ v: value, d: 0 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    if (++nodes > budget) break;
    const v = top.v;
    if (v === null || typeof v !== 'object') continue;
    const d = top.d + 1;
    if (d > depth) depth = d;
    const children: unknown[] =
      v instanceof Map ? [...v.values()] : v instanceof Set ? [...v] : Object.values(v);
    for (const c of children) stack.push({ v: c, d });
  }
  return { depth, nodes };
}
