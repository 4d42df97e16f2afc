// The bearer token of an HTTP request, read one way for both programs' authenticators.
import type { IncomingHttpHeaders } from 'node:http';

/**
 * The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or undefined.
 */
export function bearerToken(req: { headers: IncomingHttpHeaders }): string | undefined {
  const h = req.headers.authorization;
  if (h === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m?.[1];
}
