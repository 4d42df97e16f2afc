// The reference's checkpoint checksum (pkg/kubelet/checkpointmanager/checksum): FNV-32a over the
// go-spew "%#v" rendering of the checkpoint struct (SortKeys, DisableMethods, no pointer
// addresses) with its Checksum field at 0. The rendering rules used here are go-spew's formatter:
// a pointer prints "(*T)" (or "<*>" where the type is already known, as inside maps and slices),
// every other value "(T)" before its body unless its type is implied by the container; strings
// print raw, maps as "map[k:v k:v]" with sorted keys, structs as "{Name:value Name:value}",
// slices as "[a b]", nil maps and slices as "<nil>".

export type SpewValue =
  | { kind: 'string'; type: string; value: string }
  | { kind: 'number'; type: string; value: number | bigint }
  | {
      kind: 'map';
      type: string;
      entries: readonly (readonly [string | number, SpewValue])[] | null;
    }
  | { kind: 'slice'; type: string; items: readonly SpewValue[] | null }
  | { kind: 'struct'; type: string; fields: readonly (readonly [string, SpewValue])[] }
  | { kind: 'ptr'; value: SpewValue };

function typeOf(v: SpewValue): string {
  return v.kind === 'ptr' ? `*${typeOf(v.value)}` : v.type;
}

function sortedEntries(
  entries: readonly (readonly [string | number, SpewValue])[],
): (readonly [string | number, SpewValue])[] {
  return [...entries].sort(([a], [b]) => {
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    const x = String(a);
    const y = String(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

function body(v: Exclude<SpewValue, { kind: 'ptr' }>): string {
  switch (v.kind) {
    case 'string':
      return v.value;
    case 'number':
      return String(v.value);
    case 'map':
      if (v.entries === null) return '<nil>';
      return `map[${sortedEntries(v.entries)
        .map(([k, val]) => `${String(k)}:${spew(val, true)}`)
        .join(' ')}]`;
    case 'slice':
      if (v.items === null) return '<nil>';
      return `[${v.items.map((i) => spew(i, true)).join(' ')}]`;
    case 'struct':
      return `{${v.fields.map(([name, val]) => `${name}:${spew(val, false)}`).join(' ')}}`;
  }
}

/** go-spew's "%#v" of a value; `typeKnown` is spew's ignoreNextType. */
export function spew(v: SpewValue, typeKnown = false): string {
  if (v.kind === 'ptr') return `${typeKnown ? '<*>' : `(${typeOf(v)})`}${spew(v.value, true)}`;
  return `${typeKnown ? '' : `(${v.type})`}${body(v)}`;
}

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text`. */
export function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(text, 'utf8')) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function checkpointChecksum(checkpoint: SpewValue): number {
  return fnv32a(spew(checkpoint));
}

export const str = (type: string, value: string): SpewValue => ({ kind: 'string', type, value });
export const num = (type: string, value: number): SpewValue => ({ kind: 'number', type, value });
