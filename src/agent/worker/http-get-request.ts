// The URL and headers of an httpGet handler (a lifecycle hook's or a probe's), as the reference's
// NewRequestForHTTPGetAction builds them: the pod IP when no host is given (an IPv6 one in
// brackets), a named port looked up in the container's ports, the handler's headers, then the
// User-Agent of the purpose (kube-lifecycle/1.32, kube-probe/1.32) and Accept */* unless the
// handler set them (an empty Accept sends none).
import type { Container } from '../pod/types.js';

export interface HttpGetAction {
  host?: string | undefined;
  port: number | string;
  path?: string | undefined;
  scheme?: string | undefined;
  httpHeaders?: readonly { name: string; value: string }[] | undefined;
}

/** A port number, or a named port of the container (the reference's words when it has none). */
export function resolveActionPort(port: number | string, container: Container): number {
  if (typeof port === 'number') return port;
  const n = Number(port);
  if (/^\d+$/.test(port) && Number.isInteger(n)) return n;
  const named = container.ports?.find((p) => p.name === port);
  if (named) return named.containerPort;
  throw new Error(`couldn't find port: ${port} in container ${container.name}`);
}

/** `host:port`, an IPv6 host in brackets (Go's net.JoinHostPort). */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function httpGetRequest(
  get: HttpGetAction,
  container: Container,
  podIP: string,
  userAgent: string,
): { url: string; headers: Record<string, string> } {
  const scheme = (get.scheme ?? 'HTTP').toLowerCase() || 'http';
  const host = get.host !== undefined && get.host !== '' ? get.host : podIP;
  const port = resolveActionPort(get.port, container);
  const hostPort = joinHostPort(host, port);
  const path = get.path ?? '';
  const headers: Record<string, string> = {};
  for (const h of get.httpHeaders ?? []) headers[h.name.toLowerCase()] = h.value;
  headers['user-agent'] ??= userAgent;
  if (headers.accept === undefined) headers.accept = '*/*';
  else if (headers.accept === '') delete headers.accept;
  const rel = path === '' || path.startsWith('/') ? path : `/${path}`;
  return { url: `${scheme}://${hostPort}${rel}`, headers };
}
