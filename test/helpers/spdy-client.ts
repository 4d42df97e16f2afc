// A SPDY/3.1 client for tests of the agent's streaming endpoints, doing what kubectl and
// kube-apiserver do: an HTTPS upgrade request (Connection: Upgrade, Upgrade: SPDY/3.1,
// X-Stream-Protocol-Version), then streams opened with a streamType header.

import { request } from 'node:https';
import type { Socket } from 'node:net';
import { SpdySession } from '../../src/common/spdy/session.js';
import type { SpdyStream } from '../../src/common/spdy/stream.js';

export type UpgradeResult =
  | { kind: 'upgraded'; protocol: string; session: SpdySession; socket: Socket }
  | {
      kind: 'refused';
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: string;
    };

export interface UpgradeRequest {
  url: string;
  protocols: readonly string[];
  ca: string;
  cert?: string;
  key?: string;
  method?: string;
  /** Replace the Upgrade header (to try other protocols). */
  upgrade?: string;
}

export function spdyUpgrade(o: UpgradeRequest): Promise<UpgradeResult> {
  return new Promise((resolve, reject) => {
    const req = request(o.url, {
      method: o.method ?? 'POST',
      ca: o.ca,
      ...(o.cert !== undefined ? { cert: o.cert, key: o.key } : {}),
      headers: {
        connection: 'Upgrade',
        upgrade: o.upgrade ?? 'SPDY/3.1',
        'x-stream-protocol-version': [...o.protocols],
      },
    });
    req.on('upgrade', (res, socket: Socket, head: Buffer) => {
      const session = new SpdySession({ socket, role: 'client', head });
      resolve({
        kind: 'upgraded',
        protocol: String(res.headers['x-stream-protocol-version']),
        session,
        socket,
      });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          kind: 'refused',
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** Everything a stream carries until its end. */
export function readAll(s: SpdyStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    s.on('data', (c: Buffer) => chunks.push(c));
    s.once('end', () => resolve(Buffer.concat(chunks).toString()));
    s.once('close', () => resolve(Buffer.concat(chunks).toString()));
    s.once('error', reject);
  });
}

/** Opens the exec streams kubectl opens (error first, then the ones asked for). */
export async function openExecStreams(
  session: SpdySession,
  types: readonly string[],
): Promise<Map<string, SpdyStream>> {
  const out = new Map<string, SpdyStream>();
  for (const t of ['error', ...types])
    out.set(t, await session.openStream(new Map([['streamtype', [t]]])));
  return out;
}
