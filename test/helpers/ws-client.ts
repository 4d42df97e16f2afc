// A WebSocket client for tests of the agent's streaming endpoints, doing what client-go's
// websocket executor and port-forwarder do: an HTTPS GET upgrade with Sec-WebSocket-Protocol,
// then channel-prefixed binary messages (or base64 text in the base64 protocols).

import { WebSocket } from 'ws';

export type WsResult =
  | { kind: 'open'; ws: WebSocket; protocol: string; messages: WsMessages }
  | {
      kind: 'refused';
      status: number;
      headers: Record<string, string | string[] | undefined>;
      body: string;
    };

export interface WsTls {
  ca: string;
  cert?: string;
  key?: string;
}

/** Messages received, by channel, decoded (base64 protocols too). */
export class WsMessages {
  readonly byChannel = new Map<number, Buffer[]>();
  readonly order: { channel: number; data: Buffer }[] = [];
  closeCode: number | undefined;
  private waiters: (() => void)[] = [];

  constructor(ws: WebSocket) {
    ws.on('message', (raw: Buffer) => {
      if (raw.length === 0) return;
      const base64 = ws.protocol.includes('base64');
      const channel = base64 ? raw[0]! - 48 : raw[0]!;
      const data = base64
        ? Buffer.from(raw.subarray(1).toString('latin1'), 'base64')
        : Buffer.from(raw.subarray(1));
      this.order.push({ channel, data });
      this.byChannel.set(channel, [...(this.byChannel.get(channel) ?? []), data]);
      this.notify();
    });
    ws.on('close', (code: number) => {
      this.closeCode = code;
      this.notify();
    });
    ws.on('error', () => undefined);
  }

  text(channel: number): string {
    return Buffer.concat(this.byChannel.get(channel) ?? []).toString();
  }

  /**
   * A port-forward channel's text after its 2-byte port prefix (cut as bytes: the prefix is not
   * UTF-8 and may merge with the next byte into one character when decoded with it).
   */
  afterPortPrefix(channel: number): string {
    return Buffer.concat(this.byChannel.get(channel) ?? [])
      .subarray(2)
      .toString();
  }

  /** Resolves once `pred` holds (checked after every message and at close). */
  until(pred: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    if (pred()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const t = setTimeout(
        () =>
          reject(
            new Error(
              `timed out waiting for ${what}; got ${JSON.stringify(this.order.map((m) => [m.channel, m.data.toString()]))}`,
            ),
          ),
        timeoutMs,
      );
      const check = (): void => {
        if (pred()) {
          clearTimeout(t);
          this.waiters = this.waiters.filter((w) => w !== check);
          resolve();
        }
      };
      this.waiters.push(check);
    });
  }

  closed(): Promise<void> {
    return this.until(() => this.closeCode !== undefined, 'the close');
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }
}

export function wsConnect(
  url: string,
  protocols: readonly string[],
  tls: WsTls,
): Promise<WsResult> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^https:/, 'wss:'), [...protocols], {
      ca: tls.ca,
      ...(tls.cert !== undefined ? { cert: tls.cert, key: tls.key } : {}),
      perMessageDeflate: false,
    });
    const messages = new WsMessages(ws);
    ws.once('open', () => resolve({ kind: 'open', ws, protocol: ws.protocol, messages }));
    ws.once('unexpected-response', (_req, res) => {
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
    ws.once('error', (err) => reject(err));
  });
}

/** One channel-prefixed binary message. */
export function frame(channel: number, data: string | Buffer = ''): Buffer {
  return Buffer.concat([Buffer.of(channel), Buffer.from(data)]);
}
