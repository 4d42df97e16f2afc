// Response content negotiation as the reference does it (apimachinery's negotiation with
// goautoneg): the Accept header's media ranges ordered by q (then by specificity, then by
// position); the first one the server serializes wins. JSON, YAML (answered as JSON, as before)
// and protobuf are served; an Accept naming none of them is 406 NotAcceptable with the
// reference's message. A range asking for a converted form (`;as=Table`) is the Table
// printer's business (table.ts) and never selects protobuf.

import { notAcceptable } from '../status.js';
import { WIRE_NAMES } from '../../common/names.js';

export type ResponseEncoding = 'json' | 'protobuf';

/** The media types of built-in resources, in the reference's order (its 406 and 415 texts). */
export const SERVED_MEDIA_TYPES = [
  'application/json',
  'application/yaml',
  WIRE_NAMES.protobufMediaType,
] as const;

interface Range {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
  readonly index: number;
}

function parseRange(part: string, index: number): Range | undefined {
  const [mt = '', ...ps] = part.split(';').map((s) => s.trim());
  if (mt === '') return undefined;
  const params = new Map<string, string>();
  let q = 1;
  for (const p of ps) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const k = p.slice(0, eq).trim().toLowerCase();
    const v = p.slice(eq + 1).trim();
    if (k === 'q') q = Number.isFinite(Number(v)) ? Number(v) : 0;
    else params.set(k, v);
  }
  return { type: mt.toLowerCase(), params, q, index };
}

function specificity(r: Range): number {
  if (r.type === '*/*') return 0;
  if (r.type.endsWith('/*')) return 1;
  return 2 + r.params.size;
}

function encodingOf(r: Range): ResponseEncoding | 'other' {
  if (r.params.has('as')) return 'json';
  if (r.type === WIRE_NAMES.protobufMediaType) {
    const stream = r.params.get('stream');
    return stream === undefined || stream === 'watch' ? 'protobuf' : 'other';
  }
  if (
    r.type === '*/*' ||
    r.type === 'application/*' ||
    r.type === 'application/json' ||
    r.type === 'application/yaml'
  )
    return 'json';
  return 'other';
}

/** The encoding of a response to this Accept header (absent or empty: JSON). */
export function negotiateEncoding(accept: string | undefined): ResponseEncoding {
  if (accept === undefined || accept.trim() === '') return 'json';
  const ranges = accept
    .slice(0, 4096)
    .split(',')
    .map((p, i) => parseRange(p, i))
    .filter((r): r is Range => r !== undefined && r.q > 0)
    .sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.index - b.index);
  for (const r of ranges) {
    const e = encodingOf(r);
    if (e !== 'other') return e;
  }
  throw notAcceptable();
}
