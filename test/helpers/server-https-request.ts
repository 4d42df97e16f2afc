// A one-shot HTTPS/HTTP request for the agent's server tests: a fresh connection per call (the
// server remembers a connection's client certificate), optional client certificate and token.
import { request as httpsRequest } from 'node:https';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { SecureVersion, TLSSocket } from 'node:tls';
import { connect as http2Connect } from 'node:http2';

export interface TestRequest {
  method?: string;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  headers?: Record<string, string>;
  maxVersion?: SecureVersion;
  body?: string;
}

export interface TestResponse {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  /** The serving certificate's fingerprint (HTTPS only). */
  peerFingerprint?: string;
}

export function fetchText(url: string, o: TestRequest = {}): Promise<TestResponse> {
  const u = new URL(url);
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
  return new Promise((resolve, reject) => {
    const cb = (res: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const sock = res.socket as TLSSocket | null;
        const fp =
          sock && typeof sock.getPeerCertificate === 'function'
            ? (sock.getPeerCertificate() as { fingerprint256?: string } | null)?.fingerprint256
            : undefined;
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          headers: res.headers,
          ...(fp ? { peerFingerprint: fp } : {}),
        });
      });
      res.on('error', reject);
    };
    const req =
      u.protocol === 'https:'
        ? httpsRequest(
            u,
            {
              method: o.method ?? 'GET',
              headers,
              agent: false,
              ...(o.ca !== undefined ? { ca: o.ca } : { rejectUnauthorized: false }),
              ...(o.cert !== undefined ? { cert: o.cert } : {}),
              ...(o.key !== undefined ? { key: o.key } : {}),
              ...(o.maxVersion !== undefined ? { maxVersion: o.maxVersion } : {}),
            },
            cb,
          )
        : httpRequest(u, { method: o.method ?? 'GET', headers, agent: false }, cb);
    req.on('error', reject);
    req.end(o.body);
  });
}

/**
 * The same request over HTTP/2 (ALPN h2 only, as Go clients such as the API server offer it
 * first); `protocol` is what the server chose.
 */
export async function fetchH2(
  url: string,
  o: TestRequest = {},
): Promise<TestResponse & { protocol: string }> {
  const u = new URL(url);
  const session = http2Connect(u.origin, {
    ALPNProtocols: ['h2'],
    ...(o.ca !== undefined ? { ca: o.ca } : { rejectUnauthorized: false }),
    ...(o.cert !== undefined ? { cert: o.cert } : {}),
    ...(o.key !== undefined ? { key: o.key } : {}),
  });
  try {
    const headers: Record<string, string> = {
      ':method': o.method ?? 'GET',
      ':path': u.pathname + u.search,
      ...(o.headers ?? {}),
    };
    if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
    const stream = session.request(headers);
    const answer = await new Promise<TestResponse>((resolve, reject) => {
      let head: Record<string, string | string[] | undefined> = {};
      const chunks: Buffer[] = [];
      stream.on('response', (h) => (head = h));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () =>
        resolve({
          status: Number(head[':status']),
          body: Buffer.concat(chunks).toString('utf8'),
          headers: head,
        }),
      );
      stream.on('error', reject);
      session.on('error', reject);
      stream.end(o.body);
    });
    return { ...answer, protocol: session.alpnProtocol ?? '' };
  } finally {
    session.close();
  }
}

/** Polls `fn` until it returns true or the deadline passes. */
export async function waitFor(
  fn: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 25,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
