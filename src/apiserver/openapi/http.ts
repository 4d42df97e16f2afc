// The HTTP answers of /openapi/v2, /openapi/v3 and /openapi/v3/<group-version>, as the
// reference's kube-openapi handlers give them: an ETag that is the upper-case hex SHA-512 of the
// body, If-None-Match and If-Modified-Since answered with 304 (Go's http.ServeContent),
// Last-Modified the time the documents were built, 406 for a media type not offered, and under
// `?hash=`: 301 to the current hash, or `Cache-Control: public, immutable` with a one-year Expires.

import { createHash } from 'node:crypto';

export interface OpenApiRequest {
  readonly method: string;
  readonly search: URLSearchParams;
  readonly accept: string | undefined;
  readonly ifNoneMatch: string | undefined;
  readonly ifModifiedSince: string | undefined;
}

export interface OpenApiAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

/** A document ready to serve: its bytes and ETag. */
export interface Served {
  readonly bytes: Buffer;
  readonly etag: string;
}

export function served(doc: unknown): Served {
  return servedBytes(Buffer.from(JSON.stringify(doc)));
}

/** kube-openapi's computeETag: the upper-case hex SHA-512 of the bytes served. */
export function servedBytes(bytes: Buffer): Served {
  return { bytes, etag: createHash('sha512').update(bytes).digest('hex').toUpperCase() };
}

/** Go's http.TimeFormat. */
export function httpDate(d: Date): string {
  return d.toUTCString();
}

/** Go's time.RFC1123 of a UTC time: `Mon, 02 Jan 2006 15:04:05 UTC`. */
function rfc1123Utc(d: Date): string {
  return d.toUTCString().replace(/GMT$/, 'UTC');
}

interface AcceptClause {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

/** The Accept header's clauses, best first (goautoneg.ParseAccept); empty means `*\/*`. */
export function parseAccept(header: string | undefined): AcceptClause[] {
  const text = header === undefined || header.trim() === '' ? '*/*' : header;
  const out: AcceptClause[] = [];
  for (const part of text.split(',').slice(0, 64)) {
    const [range = '', ...params] = part.split(';').map((x) => x.trim());
    const [type = '', subtype = '*'] = range.split('/');
    let q = 1;
    for (const p of params) {
      const m = /^q=([0-9.]+)$/.exec(p);
      if (m !== null) q = Number(m[1]);
    }
    if (type !== '' && Number.isFinite(q) && q > 0) out.push({ type, subtype, q });
  }
  return out.sort((a, b) => b.q - a.q);
}

/**
 * Whether the client takes JSON before any other offer; `undefined` when it takes nothing offered.
 */
export function acceptsJson(
  header: string | undefined,
  otherOffers: readonly string[],
): 'json' | 'other' | undefined {
  for (const c of parseAccept(header)) {
    if ((c.type === 'application' || c.type === '*') && (c.subtype === 'json' || c.subtype === '*'))
      return 'json';
    if (otherOffers.includes(`${c.type}/${c.subtype}`)) return 'other';
  }
  return undefined;
}

/**
 * The v2 protobuf media types kube-openapi offers after JSON (the `@` form and the older `.` form).
 */
export const V2_PROTOBUF_TYPES = [
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
  'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
] as const;

/**
 * kube-openapi's HandleOpenAPIV2 negotiation: for each Accept clause, best first, the first of
 * JSON, the `@` protobuf type, the `.` protobuf type it matches (`*` matching any). The content
 * type answered for either protobuf type is the `.` form (its ReturnedContentType: the `@` form
 * is no valid media type for Go's mime.ParseMediaType, which kubectl runs on the answer).
 * Undefined when nothing offered matches (406).
 */
export function negotiateV2(header: string | undefined): string | undefined {
  const offers = ['application/json', ...V2_PROTOBUF_TYPES];
  for (const c of parseAccept(header)) {
    const hit = offers.find((o) => {
      const [type, subtype] = o.split('/');
      return (c.type === type || c.type === '*') && (c.subtype === subtype || c.subtype === '*');
    });
    if (hit !== undefined) return hit === 'application/json' ? hit : V2_PROTOBUF_TYPES[1];
  }
  return undefined;
}

function etagMatches(header: string, etag: string): boolean {
  return header.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '');
    return v === '*' || v === `"${etag}"`;
  });
}

function notModified(req: OpenApiRequest, etag: string | undefined, lastModified: Date): boolean {
  if (req.ifNoneMatch !== undefined && etag !== undefined)
    return etagMatches(req.ifNoneMatch, etag);
  if (req.ifModifiedSince === undefined) return false;
  const since = Date.parse(req.ifModifiedSince);
  return Number.isFinite(since) && Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}

/** http.ServeContent of a body (JSON unless `contentType` says otherwise). */
export function serveContent(
  req: OpenApiRequest,
  body: Buffer,
  etag: string | undefined,
  lastModified: Date,
  extra: Record<string, string> = {},
  contentType = 'application/json',
): OpenApiAnswer {
  const headers: Record<string, string> = { ...extra, 'Last-Modified': httpDate(lastModified) };
  if (etag !== undefined) headers['Etag'] = `"${etag}"`;
  if (notModified(req, etag, lastModified)) return { status: 304, headers, body: Buffer.alloc(0) };
  headers['Content-Type'] = contentType;
  headers['Accept-Ranges'] = 'bytes';
  headers['Content-Length'] = String(body.length);
  return { status: 200, headers, body: req.method === 'HEAD' ? Buffer.alloc(0) : body };
}

export const NOT_ACCEPTABLE: OpenApiAnswer = { status: 406, headers: {}, body: Buffer.alloc(0) };

/** A group-version document, with the `?hash=` rules of kube-openapi's handler3. */
export function serveGroupVersion(
  req: OpenApiRequest,
  key: string,
  doc: Served,
  builtAt: Date,
  now: Date,
): OpenApiAnswer {
  if (acceptsJson(req.accept, []) !== 'json') return NOT_ACCEPTABLE;
  const hash = req.search.get('hash');
  if (hash === null || hash === '') return serveContent(req, doc.bytes, doc.etag, builtAt);
  if (hash !== doc.etag) {
    const location = `/openapi/v3/${key}?hash=${doc.etag}`;
    const body = Buffer.from(`<a href="${location}">Moved Permanently</a>.\n\n`);
    return {
      status: 301,
      headers: {
        Location: location,
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Length': String(body.length),
        Etag: `"${doc.etag}"`,
      },
      body,
    };
  }
  const expires = new Date(now.getTime());
  expires.setUTCFullYear(expires.getUTCFullYear() + 1);
  return serveContent(req, doc.bytes, doc.etag, builtAt, {
    Vary: 'Accept',
    'Cache-Control': 'public, immutable',
    Expires: rfc1123Utc(expires),
  });
}
