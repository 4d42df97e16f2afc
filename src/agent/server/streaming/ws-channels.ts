// Channels multiplexed over one WebSocket, as the reference's wsstream.Conn: every message starts
// with its channel number (one byte; in the base64 protocols an ASCII digit, the rest base64
// text), an empty message is skipped, a message for a channel beyond the last is dropped, and
// under v5.channel.k8s.io the message [255, n] closes the peer's side of channel n (kubectl's
// stdin EOF). Data for a channel we do not read is dropped, as the reference's IgnoreChannel.
// Closing sends the close frame with 1000 (normal), which clients read as EOF.

import { Readable, Writable } from 'node:stream';
import type { WebSocket } from 'ws';

export type ChannelMode = 'read' | 'write' | 'readwrite' | 'ignore';

/** Bytes waiting in the WebSocket's socket before a writer waits for its messages to leave. */
const SEND_BUFFER = 1024 * 1024;

/** The reference's StreamClose channel (remotecommand.StreamClose) in v5.channel.k8s.io. */
export const CLOSE_CHANNEL = 255;

export interface ChannelConnectionOptions {
  ws: WebSocket;
  /** false: the base64 protocols (text messages). */
  binary: boolean;
  modes: readonly ChannelMode[];
  /** v5.channel.k8s.io: honour the close signal. */
  closeSignal: boolean;
}

function canRead(m: ChannelMode | undefined): boolean {
  return m === 'read' || m === 'readwrite';
}

function canWrite(m: ChannelMode | undefined): boolean {
  return m === 'write' || m === 'readwrite';
}

export class ChannelConnection {
  private readonly readers: (Readable | undefined)[];
  private readonly paused = new Set<number>();
  private closed = false;
  private lastSent: Promise<void> = Promise.resolve();
  readonly done: Promise<void>;

  constructor(private readonly o: ChannelConnectionOptions) {
    this.readers = o.modes.map((m, i) => (canRead(m) ? this.makeReader(i) : undefined));
    this.done = new Promise((resolve) => o.ws.once('close', () => resolve()));
    o.ws.on('message', (data: Buffer) => this.onMessage(data));
    o.ws.once('close', () => this.teardown());
    // A malformed frame: ws answers with a close frame (1002/1007/1009) and emits this first.
    o.ws.on('error', () => this.teardown());
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** What the peer sends on channel `n` (undefined when the channel is not read). */
  reader(n: number): Readable | undefined {
    return this.readers[n];
  }

  /**
   * A stream whose writes go out on channel `n`; its end sends nothing (the reference's Close of a
   * pipe). A write is done once handed to the WebSocket; only while more than SEND_BUFFER bytes
   * wait to be written does it wait for its message to leave (waiting for every message halved
   * port-forward throughput: one message in flight at a time).
   */
  writer(n: number): Writable {
    return new Writable({
      highWaterMark: 1 << 20,
      write: (chunk: Buffer, _enc, cb) => {
        const sent = this.send(n, chunk);
        if (this.o.ws.bufferedAmount > SEND_BUFFER) sent.then(() => cb(), cb);
        else cb();
      },
      final: (cb) => {
        // What was written has left (or the connection went) before the writer reports finish.
        this.send(n, undefined).then(() => cb(), cb);
      },
    });
  }

  /**
   * Sends one message on channel `n` (an empty `data` sends the channel byte alone); resolves once
   * it has been written. `undefined` sends nothing and resolves once what was sent before has.
   */
  send(n: number, data: Buffer | undefined): Promise<void> {
    // A connection on its way out drops what is still sent (its peer is gone or going).
    if (this.closed || this.o.ws.readyState !== this.o.ws.OPEN || !canWrite(this.o.modes[n]))
      return Promise.resolve();
    if (data === undefined) return this.lastSent;
    const frame = this.o.binary
      ? Buffer.concat([Buffer.of(n), data])
      : String.fromCharCode(48 + n) + data.toString('base64');
    const sent = new Promise<void>((resolve) => {
      this.o.ws.send(frame, { binary: this.o.binary }, () => resolve());
    });
    this.lastSent = sent;
    return sent;
  }

  /** Ends a writer and resolves once everything written to it has been sent. */
  static flushed(w: Writable): Promise<void> {
    return new Promise((resolve) => {
      if (w.writableFinished || w.destroyed) {
        resolve();
        return;
      }
      w.once('finish', () => resolve());
      w.once('close', () => resolve());
      w.end();
    });
  }

  /** Closes with 1000 once what was sent has left. */
  close(): void {
    if (this.o.ws.readyState === this.o.ws.OPEN) this.o.ws.close(1000);
    else this.o.ws.terminate();
  }

  /** The peer vanished or misbehaved: drop the connection now. */
  destroy(): void {
    this.o.ws.terminate();
    this.teardown();
  }

  private makeReader(n: number): Readable {
    return new Readable({
      highWaterMark: 1 << 20,
      read: () => {
        if (this.paused.delete(n) && this.paused.size === 0 && !this.closed) this.o.ws.resume();
      },
    });
  }

  private onMessage(raw: Buffer): void {
    if (raw.length === 0) return;
    let channel = raw.readUInt8(0);
    if (!this.o.binary) channel -= 48;
    let data = raw.subarray(1);
    if (this.o.closeSignal && channel === CLOSE_CHANNEL) {
      if (data.length === 1) this.readers[data.readUInt8(0)]?.push(null);
      return;
    }
    if (channel < 0 || channel >= this.o.modes.length) return;
    const r = this.readers[channel];
    if (r === undefined || r.readableEnded) return;
    if (!this.o.binary) data = Buffer.from(data.toString('latin1'), 'base64');
    if (data.length > 0 && !r.push(data)) {
      this.paused.add(channel);
      this.o.ws.pause();
    }
  }

  private teardown(): void {
    if (this.closed) return;
    this.closed = true;
    for (const r of this.readers) if (r !== undefined && !r.readableEnded) r.push(null);
  }
}
