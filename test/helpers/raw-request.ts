// Requests whose path goes on the wire byte for byte. undici's `request(url)` (and fetch) parse
// the URL with the WHATWG parser, which resolves `.`/`..` and `%2e` before sending; hostile-path
// tests must send exactly what an attacker sends, so this goes through the dispatcher with a raw
// `path`. The body is read up to `maxBytes` (watch streams are cut there).

import { readFileSync } from 'node:fs';
import { Agent, type Dispatcher } from 'undici';
import { parse as parseYaml } from 'yaml';

export interface RawResponse {
  readonly status: number;
  readonly text: string;
  readonly json: Record<string, unknown> | undefined;
}

export interface RawRequestOptions {
  readonly body?: string;
  readonly contentType?: string;
  /** Stop reading (and abort) after this many bytes; default 1 MiB. */
  readonly maxBytes?: number;
  /** Abort a response that has not ended this long after the request began (watches); default 10 s. */
  readonly timeoutMs?: number;
  /** Once the headers are in, abort a body that has not ended within this window (a watch streaming). */
  readonly streamWindowMs?: number;
}

export async function rawRequest(
  dispatcher: Dispatcher,
  origin: string,
  method: string,
  path: string,
  o: RawRequestOptions = {},
): Promise<RawResponse> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), o.timeoutMs ?? 10_000);
  try {
    const res = await dispatcher.request({
      origin,
      path,
      method: method as Dispatcher.HttpMethod,
      headers: o.contentType !== undefined ? { 'content-type': o.contentType } : {},
      ...(o.body !== undefined ? { body: o.body } : {}),
      signal: ac.signal,
    });
    const max = o.maxBytes ?? 1 << 20;
    if (o.streamWindowMs !== undefined) {
      clearTimeout(timer);
      setTimeout(() => ac.abort(), o.streamWindowMs).unref();
    }
    let text = '';
    try {
      for await (const chunk of res.body) {
        text += (chunk as Buffer).toString('utf8');
        if (text.length >= max) break;
      }
    } catch {
      // aborted (a watch that streams until its timeout): the status and what was read stand
    }
    if (text.length >= max || !res.body.readableEnded) ac.abort();
    let json: Record<string, unknown> | undefined;
    try {
      const v: unknown = JSON.parse(text);
      json =
        v !== null && typeof v === 'object' && !Array.isArray(v)
          ? (v as Record<string, unknown>)
          : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, text, json };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * An admin client that keeps its TLS connection open (the apiserver helper's agents open one per
 * request), for suites that send thousands of requests. Close it when done.
 */
export function keepAliveAdminAgent(adminPlatconfig: string): Agent {
  const cfg = parseYaml(readFileSync(adminPlatconfig, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const pem = (b64: string | undefined): string => Buffer.from(b64 ?? '', 'base64').toString();
  return new Agent({
    connect: {
      ca: pem(cfg.clusters[0]?.cluster['certificate-authority-data']),
      cert: pem(cfg.users[0]?.user['client-certificate-data']),
      key: pem(cfg.users[0]?.user['client-key-data']),
    },
    pipelining: 1,
  });
}
