// The SPDY/3 name/value header block before compression: a 32-bit count of pairs, then each
// name and value after its 32-bit length. Several values of one name travel as one value joined
// by NUL. Names must be lower case, non-empty and unique in a block (the spec's rules).

import { SpdyProtocolError } from './errors.js';

/** Header names (lower case) to their values, in the order they came. */
export type SpdyHeaders = ReadonlyMap<string, readonly string[]>;

export interface HeaderBlockLimits {
  /** Most pairs in one block (default 256). */
  readonly maxPairs: number;
}

export const DEFAULT_HEADER_LIMITS: HeaderBlockLimits = { maxPairs: 256 };

export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const parts: Buffer[] = [u32(headers.size)];
  for (const [name, values] of headers) {
    const n = Buffer.from(name.toLowerCase(), 'utf8');
    const v = Buffer.from(values.join('\0'), 'utf8');
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

function bad(message: string): SpdyProtocolError {
  return new SpdyProtocolError(`header block: ${message}`, { frame: 'header block' });
}

export function decodeHeaderBlock(
  block: Buffer,
  limits: HeaderBlockLimits = DEFAULT_HEADER_LIMITS,
): SpdyHeaders {
  let at = 0;
  const take = (what: string): Buffer => {
    if (block.length - at < 4) throw bad(`ends inside the length of ${what} at byte ${at}`);
    const len = block.readUInt32BE(at);
    at += 4;
    if (block.length - at < len)
      throw bad(`${what} claims ${len} bytes at byte ${at} but ${block.length - at} remain`);
    const out = block.subarray(at, at + len);
    at += len;
    return out;
  };
  if (block.length < 4)
    throw bad(`has ${block.length} bytes; accepted: at least 4 (the pair count)`);
  const count = block.readUInt32BE(0);
  at = 4;
  if (count > limits.maxPairs)
    throw bad(`announces ${count} pairs; accepted: at most ${limits.maxPairs}`);
  const headers = new Map<string, string[]>();
  for (let i = 0; i < count; i++) {
    const name = take(`name ${i + 1}`).toString('utf8');
    const value = take(`value of "${name.slice(0, 64)}"`).toString('utf8');
    if (name === '') throw bad(`pair ${i + 1} has an empty name`);
    if (name !== name.toLowerCase()) throw bad(`name "${name.slice(0, 64)}" is not lower case`);
    if (headers.has(name)) throw bad(`name "${name.slice(0, 64)}" appears twice`);
    headers.set(name, value.split('\0'));
  }
  if (at !== block.length) throw bad(`has ${block.length - at} bytes after its ${count} pairs`);
  return headers;
}

/** The first value of a header, or undefined. */
export function headerValue(headers: SpdyHeaders, name: string): string | undefined {
  return headers.get(name)?.[0];
}
