// One request from plat-apiserver to a node agent over HTTPS, authenticated with the
// kubelet-client certificate and, when --kubelet-certificate-authority is given, verifying the
// agent's serving certificate. An upgrade request resolves with the upgraded socket; anything
// else with the agent's response. A dial failure carries the reference's wording
// (`dial tcp <addr>: connect: connection refused`).

import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { request } from 'node:https';
import type { Socket } from 'node:net';
import { afterMs, systemClock, type Clock } from '../../common/util/clock.js';

export interface AgentTls {
  readonly certPem: string;
  readonly keyPem: string;
  /** undefined: the agent's certificate is not verified (as the reference without a CA). */
  readonly caPem: string | undefined;
}

export interface AgentTarget {
  readonly host: string;
  readonly port: number;
  /** Path and query on the agent. */
  readonly path: string;
}

export type AgentAnswer =
  | { kind: 'upgraded'; response: IncomingMessage; socket: Socket; head: Buffer }
  | { kind: 'response'; response: IncomingMessage };

export function agentUrl(t: AgentTarget): string {
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return `https://${host}:${t.port}${t.path}`;
}

/** Go's net error text for a failed dial, as the reference's proxy reports it. */
export function dialErrorText(err: NodeJS.ErrnoException, t: AgentTarget): string {
  const addr = `${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${addr}: connect: no route to host`;
    case 'ETIMEDOUT':
      return `dial tcp ${addr}: i/o timeout`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${t.host}: no such host`;
    default:
      return err.message;
  }
}

export class AgentDialError extends Error {
  constructor(message: string, cause: Error) {
    super(message, { cause });
    this.name = 'AgentDialError';
  }
}

export interface AgentRequest {
  readonly target: AgentTarget;
  readonly tls: AgentTls;
  /** Skip verification for this request (pods/log insecureSkipTLSVerifyBackend). */
  readonly insecure?: boolean;
  readonly method: string;
  readonly headers: IncomingHttpHeaders | Record<string, string | string[]>;
  readonly signal?: AbortSignal;
  /** How long the connection and the response head may take (default 30 s). */
  readonly timeoutMs?: number;
  /** A request body to stream to the agent (nodes/proxy); none when absent. */
  readonly body?: NodeJS.ReadableStream;
  /** Times the dial (default the system clock). */
  readonly clock?: Clock;
}

export function dialAgent(r: AgentRequest): Promise<AgentAnswer> {
  return new Promise((resolve, reject) => {
    const verify = r.tls.caPem !== undefined && r.insecure !== true;
    const req = request({
      host: r.target.host,
      port: r.target.port,
      path: r.target.path,
      method: r.method,
      headers: r.headers,
      agent: false,
      cert: r.tls.certPem,
      key: r.tls.keyPem,
      ...(verify ? { ca: r.tls.caPem, rejectUnauthorized: true } : { rejectUnauthorized: false }),
      ...(r.signal !== undefined ? { signal: r.signal } : {}),
    });
    const cancelTimer = afterMs(r.clock ?? systemClock, r.timeoutMs ?? 30_000, () =>
      req.destroy(
        Object.assign(new Error(`dial tcp ${r.target.host}:${r.target.port}: i/o timeout`), {
          code: 'ETIMEDOUT',
        }),
      ),
    );
    req.once('upgrade', (response: IncomingMessage, socket: Socket, head: Buffer) => {
      cancelTimer();
      // Streams carry small frames both ways: Nagle's delay would hold each behind a delayed ACK.
      socket.setNoDelay(true);
      resolve({ kind: 'upgraded', response, socket, head });
    });
    req.once('response', (response: IncomingMessage) => {
      cancelTimer();
      resolve({ kind: 'response', response });
    });
    req.once('error', (err: NodeJS.ErrnoException) => {
      cancelTimer();
      reject(new AgentDialError(dialErrorText(err, r.target), err));
    });
    if (r.body !== undefined) r.body.pipe(req);
    else req.end();
  });
}

/** Reads a (refusal) body up to `limit` bytes. */
export function readBody(res: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      if (size < limit) chunks.push(c.subarray(0, limit - size));
      size += c.length;
    });
    res.once('end', () => resolve(Buffer.concat(chunks)));
    res.once('error', () => resolve(Buffer.concat(chunks)));
    res.once('close', () => resolve(Buffer.concat(chunks)));
  });
}
