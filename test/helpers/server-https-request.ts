// A one-shot HTTPS/HTTP request for the agent's server tests: a fresh connection per call (the
// server remembers a connection's client certificate), optional client certificate and token.
import { request as httpsRequest } from 'node:https';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { SecureVersion, TLSSocket } from 'node:tls';

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
