// The alpha `shardSelector` (feature gate ShardedListAndWatch):
//   shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(...)
// An object matches when, for any term, start <= FNV-1a-64(field) < end. All terms must use the
// same field; the end may be 2^64 ('0x10000000000000000').

import { SelectorError } from './errors.js';

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;
const HASH_SPACE_END = 0x10000000000000000n;

/** FNV-1a 64-bit over the UTF-8 bytes of `s`. */
export function fnv1a64(s: string): bigint {
  let h = FNV_OFFSET;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= BigInt(b);
    h = (h * FNV_PRIME) & MASK64;
  }
  return h;
}

export type ShardField = 'object.metadata.uid' | 'object.metadata.namespace';
export const SHARD_FIELDS: readonly ShardField[] = ['object.metadata.uid', 'object.metadata.namespace'];

export interface ShardRange {
  readonly start: bigint;
  /** Exclusive; at most 2^64. */
  readonly end: bigint;
}

export interface ShardSelector {
  readonly field: ShardField;
  readonly ranges: readonly ShardRange[];
  /** The selector text as given (echoed in a list's `metadata.shardInfo.selector`). */
  readonly selector: string;
  matches(obj: unknown): boolean;
  /** Whether an object whose field has this value falls in the shard. */
  matchesValue(value: string): boolean;
}

function splitArgs(s: string): string[] {
  // Commas inside single-quoted strings do not split.
  const args: string[] = [];
  let cur = '';
  let inQuote = false;
  for (const c of s) {
    if (c === "'") inQuote = !inQuote;
    if (c === ',' && !inQuote) {
      args.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  args.push(cur.trim());
  return args.length === 1 && args[0] === '' ? [] : args;
}

function parseBound(raw: string, name: 'hexStart' | 'hexEnd'): bigint {
  let v = raw;
  if (v.length >= 2 && v.startsWith("'") && v.endsWith("'")) v = v.slice(1, -1);
  else throw new SelectorError(`${name} ${raw}: must be a single-quoted string such as '0x0000000000000000'`);
  if (!v.startsWith('0x')) throw new SelectorError(`${name} must have '0x' prefix`);
  const digits = v.slice(2);
  const isMax = name === 'hexEnd' && digits === '10000000000000000';
  if (!isMax && !/^[0-9a-fA-F]{16}$/.test(digits)) {
    throw new SelectorError(`${name} '${v}': must be a 0x-prefixed 16-digit hex value`);
  }
  return BigInt(`0x${digits}`);
}

function fieldValue(obj: unknown, field: ShardField): string {
  if (obj === null || typeof obj !== 'object') return '';
  const md = (obj as { metadata?: unknown }).metadata;
  if (md === null || typeof md !== 'object') return '';
  const v = (md as Record<string, unknown>)[field === 'object.metadata.uid' ? 'uid' : 'namespace'];
  return typeof v === 'string' ? v : '';
}

export function parseShardSelector(s: string): ShardSelector {
  const text = s.trim();
  if (text === '') throw new SelectorError('empty shard selector is not allowed');
  const ranges: ShardRange[] = [];
  let field: ShardField | undefined;
  for (const rawTerm of text.split('||')) {
    const term = rawTerm.trim();
    const m = /^([^()\s]*)\s*\(([\s\S]*)\)$/.exec(term);
    if (m === null) {
      throw new SelectorError(`invalid shard selector term '${term}': expected shardRange(<field>, '<hexStart>', '<hexEnd>')`);
    }
    const fn = m[1] ?? '';
    if (fn !== 'shardRange') throw new SelectorError(`unsupported function ${JSON.stringify(fn)}`);
    const args = splitArgs(m[2] ?? '');
    if (args.length !== 3) throw new SelectorError('shardRange() requires exactly 3 arguments');
    const path = args[0] ?? '';
    if (path !== 'object.metadata.uid' && path !== 'object.metadata.namespace') {
      throw new SelectorError(`unsupported field path ${JSON.stringify(path)}: supported are object.metadata.uid and object.metadata.namespace`);
    }
    const start = parseBound(args[1] ?? '', 'hexStart');
    const end = parseBound(args[2] ?? '', 'hexEnd');
    if (start >= end) {
      throw new SelectorError(`shard range start ${args[1] ?? ''} must be less than end ${args[2] ?? ''}`);
    }
    if (end > HASH_SPACE_END) throw new SelectorError(`hexEnd ${args[2] ?? ''}: must be a 0x-prefixed 16-digit hex value`);
    if (field !== undefined && field !== path) throw new SelectorError('all shard ranges must use the same field');
    field = path;
    ranges.push({ start, end });
  }
  const f = field ?? 'object.metadata.uid';
  const matchesValue = (value: string): boolean => {
    const h = fnv1a64(value);
    return ranges.some((r) => r.start <= h && h < r.end);
  };
  return {
    field: f,
    ranges,
    selector: s,
    matchesValue,
    matches: (obj: unknown) => matchesValue(fieldValue(obj, f)),
  };
}
