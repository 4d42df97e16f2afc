// The request target (`req.url`) as the reference's HTTP server reads it: the path is
// percent-decoded once and is NOT resolved (`.` and `..` stay segments, `%2e` stays a segment
// named `.`; the WHATWG URL parser would resolve both and turn `DELETE .../csrs/%2e` into a
// collection delete), a bad escape such as `%zz` is a 400, and the query is kept raw for
// URLSearchParams. Routing, authorization and anonymous-path rules all read this one result.

import { goQuote } from '../common/util/go-quote.js';
import { StatusError } from './status.js';

export interface RequestTarget {
  /** The decoded path, trailing slashes removed (except for `/` itself). */
  readonly path: string;
  readonly search: URLSearchParams;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/**
 * Percent-decodes a URL path as Go's url.PathUnescape does: `%XX` becomes the byte XX, `+` stays
 * `+`, anything else is kept; a `%` not followed by two hex digits is an error naming it.
 */
export function unescapePath(raw: string): string {
  if (!raw.includes('%')) return raw;
  const bytes = Buffer.from(raw, 'utf8');
  const out = Buffer.alloc(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i] ?? 0;
    if (c !== 0x25) {
      out[n++] = c;
      continue;
    }
    const h1 = bytes[i + 1];
    const h2 = bytes[i + 2];
    if (h1 === undefined || h2 === undefined || !isHex(h1) || !isHex(h2)) {
      const bad = utf8.decode(bytes.subarray(i, Math.min(i + 3, bytes.length)));
      throw new StatusError(400, 'BadRequest', `invalid URL escape ${goQuote(bad)}`);
    }
    out[n++] = Number.parseInt(String.fromCharCode(h1, h2), 16);
    i += 2;
  }
  return utf8.decode(out.subarray(0, n));
}

/**
 * The path part of a request target: origin-form as is, absolute-form without scheme and authority.
 */
function rawPathAndQuery(url: string): { rawPath: string; rawQuery: string } {
  let target = url;
  const absolute = /^https?:\/\/[^/?]*/i.exec(target);
  if (absolute !== null) target = target.slice(absolute[0].length) || '/';
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  const rawQuery = q < 0 ? '' : target.slice(q + 1);
  if (!rawPath.startsWith('/'))
    throw new StatusError(400, 'BadRequest', 'invalid request URI: the path must begin with "/"');
  return { rawPath, rawQuery };
}

/** Parses `req.url`; throws a 400 StatusError for a path that cannot be decoded. */
export function parseRequestTarget(url: string | undefined): RequestTarget {
  const { rawPath, rawQuery } = rawPathAndQuery(url ?? '/');
  const decoded = unescapePath(rawPath);
  const path = decoded.length > 1 ? decoded.replace(/\/+$/, '') || '/' : decoded;
  return { path, search: new URLSearchParams(rawQuery) };
}

/** The undecoded path of a request target, for logs and traces (never throws). */
export function rawRequestPath(url: string | undefined): string {
  const target = url ?? '/';
  const q = target.indexOf('?');
  return q < 0 ? target : target.slice(0, q);
}
