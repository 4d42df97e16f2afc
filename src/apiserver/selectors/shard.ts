// The alpha `shardSelector` (feature gate ShardedListAndWatch):
//   shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(...)
// An object matches when, for any term, start <= FNV-1a-64(field) < end. All terms must use the
// same field; the end may be 2^64 ('0x10000000000000000').

import { SelectorError } from './errors.js';
import { recordOf } from '../../common/util/json-shape.js';

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;

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
export const SHARD_FIELDS: readonly ShardField[] = [
  'object.metadata.uid',
  'object.metadata.namespace',
];

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
  // Commas inside quoted strings do not split.
  const args: string[] = [];
  let cur = '';
  let quote = '';
  for (const c of s) {
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    if (c === ',' && quote === '') {
      args.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  if (quote !== '')
    throw new SelectorError(
      'CEL parse error: Syntax error: token recognition error: unterminated string',
    );
  args.push(cur.trim());
  return args.length === 1 && args[0] === '' ? [] : args;
}

/** Checks one bound and returns its lowercase hex digits (16, or 17 for 2^64). */
function parseBound(raw: string, name: 'hexStart' | 'hexEnd'): string {
  const quoted =
    raw.length >= 2 && (raw.startsWith("'") || raw.startsWith('"')) && raw.endsWith(raw.charAt(0));
  if (!quoted)
    throw new SelectorError(
      `${name} must be a string literal (e.g. '0xff'), got ${JSON.stringify(raw)}`,
    );
  const v = raw.slice(1, -1);
  if (!v.startsWith('0x'))
    throw new SelectorError(`${name} must have '0x' prefix, got ${JSON.stringify(v)}`);
  const hex = v.slice(2);
  if (hex === '') throw new SelectorError(`${name}: hex value is required after '0x'`);
  if (hex.length > 17)
    throw new SelectorError(
      `${name}: hex value too long (${hex.length} chars, max 17): ${JSON.stringify(hex)}`,
    );
  for (const c of hex) {
    if (!/[0-9a-f]/.test(c))
      throw new SelectorError(
        `${name}: invalid hex character ${JSON.stringify(c)} in ${JSON.stringify(v)}`,
      );
  }
  if (hex.length === 17) {
    if (v !== '0x10000000000000000')
      throw new SelectorError(
        `${name}: 17-digit hex value must be '0x10000000000000000' (2^64), got ` +
          JSON.stringify(v),
      );
  } else if (hex.length !== 16) {
    const padded = `0x${'0'.repeat(16 - hex.length)}${hex}`;
    throw new SelectorError(
      `${name} must be a 0x-prefixed 16-digit hex value, got ${JSON.stringify(v)} (did ` +
        `you mean ${JSON.stringify(padded)}?)`,
    );
  }
  return v;
}

function fieldValue(obj: unknown, field: ShardField): string {
  const md = recordOf(recordOf(obj)['metadata']);
  const v = md[field === 'object.metadata.uid' ? 'uid' : 'namespace'];
  return typeof v === 'string' ? v : '';
}

/** One `shardRange(field, hexStart, hexEnd)` term: its field and its range. */
function parseTerm(term: string): { path: ShardField; range: ShardRange } {
  const m = /^([A-Za-z_][A-Za-z0-9_.]*)\s*\(([\s\S]*)\)$/.exec(term);
  if (m === null) {
    if (/^[A-Za-z_][A-Za-z0-9_.]*$/.test(term) || /^['"0-9]/.test(term)) {
      throw new SelectorError(
        `unexpected expression ${JSON.stringify(term)}; expected shardRange() call or || operator`,
      );
    }
    throw new SelectorError(`CEL parse error: Syntax error: cannot parse ${JSON.stringify(term)}`);
  }
  const fn = m[1] ?? '';
  if (fn !== 'shardRange')
    throw new SelectorError(
      `unsupported function ${JSON.stringify(fn)}; only shardRange() and || are allowed`,
    );
  const args = splitArgs(m[2] ?? '');
  if (args.length !== 3)
    throw new SelectorError(`shardRange() requires exactly 3 arguments, got ${args.length}`);
  const path = args[0] ?? '';
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(path)) {
    throw new SelectorError(
      `shardRange() first argument: expected field path (e.g. object.metadata.uid), got ` +
        JSON.stringify(path),
    );
  }
  if (path !== 'object.metadata.uid' && path !== 'object.metadata.namespace') {
    throw new SelectorError(
      `unsupported field path ${JSON.stringify(path)}; supported: object.metadata.uid, ` +
        `object.metadata.namespace`,
    );
  }
  const startHex = parseBound(args[1] ?? '', 'hexStart');
  const endHex = parseBound(args[2] ?? '', 'hexEnd');
  const start = BigInt(startHex);
  const end = BigInt(endHex);
  if (start >= end)
    throw new SelectorError(`shard range start ${startHex} must be less than end ${endHex}`);
  return { path, range: { start, end } };
}

export function parseShardSelector(s: string): ShardSelector {
  const text = s.trim();
  if (text === '') throw new SelectorError('empty shard selector is not allowed');
  const ranges: ShardRange[] = [];
  let field: ShardField | undefined;
  for (const rawTerm of text.split('||')) {
    const term = rawTerm.trim();
    if (term === '')
      throw new SelectorError("CEL parse error: Syntax error: mismatched input '||'");
    const { path, range } = parseTerm(term);
    if (field !== undefined && field !== path) {
      throw new SelectorError(
        `all shard ranges must use the same field, got ${JSON.stringify(field)} and ` +
          JSON.stringify(path),
      );
    }
    field = path;
    ranges.push(range);
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
