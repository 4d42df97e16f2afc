// The input a bounded parse reads and what its errors say: the bounds, the source's name, and
// an InputLimitError that names the limit, the input and where (byte offset, field path).

import { InputLimitError } from './errors.js';
import { LIMIT_TEXT, type ParseLimitName, type ParseLimits } from './parse-limits.js';

export interface BoundedInput {
  readonly limits: ParseLimits;
  /** The file, URL or `request body` the text came from, for messages. */
  readonly source: string;
}

/** A path segment: an object key or an array index. */
export type PathSegment = string | number;

export function pathText(segments: readonly PathSegment[]): string {
  let s = '';
  for (const seg of segments) {
    if (typeof seg === 'number') s += `[${seg}]`;
    else {
      const key = seg.length > 64 ? `${seg.slice(0, 64)}...` : seg;
      s += s === '' ? key : `.${key}`;
    }
  }
  // A path as deep as the limit is long: its head and tail say where.
  return s.length > 200 ? `${s.slice(0, 120)}...${s.slice(-60)}` : s;
}

/** The InputLimitError for `limit` passed at character `index` of `text`. */
export function limitError(
  input: BoundedInput,
  limit: ParseLimitName,
  text: string,
  index: number,
  path: readonly PathSegment[] = [],
  detail?: string,
): InputLimitError {
  const max = input.limits[limit];
  const offset = Buffer.byteLength(
    text.slice(0, Math.max(0, Math.min(index, text.length))),
    'utf8',
  );
  const field = pathText(path);
  const at =
    field === '' ? `at byte offset ${offset}` : `at byte offset ${offset} (field ${field})`;
  const what = detail ?? `more than ${max} ${LIMIT_TEXT[limit]}`;
  return new InputLimitError(`${input.source}: ${what} (limit ${limit}=${max}) ${at}`, {
    limit,
    max,
    source: input.source,
    offset,
    field,
  });
}

/** Throws InputLimitError when `text` is larger than limits.maxBytes. */
export function checkSize(text: string, input: BoundedInput): void {
  // Each UTF-16 unit is at most 3 UTF-8 bytes: the exact count is needed only near the limit.
  if (text.length * 3 <= input.limits.maxBytes) return;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > input.limits.maxBytes) {
    const max = input.limits.maxBytes;
    throw new InputLimitError(
      `${input.source}: ${bytes} bytes is more than ${max} bytes (limit maxBytes=${max})`,
      {
        limit: 'maxBytes',
        max,
        source: input.source,
        offset: max,
        field: '',
      },
    );
  }
}
