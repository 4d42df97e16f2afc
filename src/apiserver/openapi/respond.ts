// Writes an OpenAPI answer (index.ts) to the HTTP response.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OpenApi } from './index.js';

export function isOpenApiPath(path: string): boolean {
  return path === '/openapi/v2' || path === '/openapi/v3' || path.startsWith('/openapi/v3/');
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Answers the request; false when the path names no document (the caller answers 404). */
export function answerOpenApi(
  openapi: OpenApi,
  path: string,
  search: URLSearchParams,
  req: IncomingMessage,
  res: ServerResponse,
): boolean {
  const a = openapi.answer(path, {
    method: req.method ?? 'GET',
    search,
    accept: header(req, 'accept'),
    ifNoneMatch: header(req, 'if-none-match'),
    ifModifiedSince: header(req, 'if-modified-since'),
  });
  if (a === undefined) return false;
  // The reference's WithCacheControl filter: every answer that does not say otherwise is private.
  res.writeHead(a.status, { 'Cache-Control': 'no-cache, private', ...a.headers });
  res.end(a.body);
  return true;
}
