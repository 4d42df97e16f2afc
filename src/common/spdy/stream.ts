// One SPDY stream as a Node Duplex: what the peer sends arrives as readable data (its FIN ends
// it), what we write leaves as DATA frames (end() sends an empty DATA frame with FIN, as
// spdystream's Close does). reset() sends RST_STREAM and tears the stream down.

import { Duplex } from 'node:stream';
import type { SpdyHeaders } from './header-block.js';

/** What a stream needs from its session (owned here, implemented by SpdySession). */
export interface StreamTransport {
  sendData(streamId: number, data: Buffer, fin: boolean): Promise<void>;
  sendReset(streamId: number, status: number): void;
  readPaused(streamId: number): void;
  readResumed(streamId: number): void;
  forget(streamId: number): void;
}

export class SpdyStream extends Duplex {
  private remoteClosed = false;
  private localClosed = false;

  constructor(
    readonly id: number,
    readonly headers: SpdyHeaders,
    private readonly transport: StreamTransport,
  ) {
    // Room for a few whole frames each way, so one 64 KiB frame does not pause the connection.
    super({ allowHalfOpen: true, readableHighWaterMark: 1 << 20, writableHighWaterMark: 1 << 20 });
    this.once('close', () => transport.forget(id));
  }

  /** The first value of one of the stream's SYN headers. */
  header(name: string): string | undefined {
    return this.headers.get(name)?.[0];
  }

  /** Called by the session with the peer's data; `fin` ends the readable side. */
  receive(data: Buffer, fin: boolean): void {
    if (this.remoteClosed) return;
    if (data.length > 0 && !this.push(data)) this.transport.readPaused(this.id);
    if (fin) this.receiveFin();
  }

  receiveFin(): void {
    if (this.remoteClosed) return;
    this.remoteClosed = true;
    this.push(null);
    this.maybeDone();
  }

  /** The peer reset the stream or the connection went away. */
  abort(reason: string): void {
    this.localClosed = true;
    if (this.remoteClosed && reason === '') {
      // Everything the peer sent arrived: keep it for a reader that comes later.
      this.maybeDone();
      return;
    }
    this.remoteClosed = true;
    this.destroy(reason === '' ? undefined : new Error(reason));
  }

  reset(status: number): void {
    if (this.destroyed) return;
    this.transport.sendReset(this.id, status);
    this.remoteClosed = true;
    this.localClosed = true;
    this.destroy();
  }

  override _read(): void {
    this.transport.readResumed(this.id);
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.transport.sendData(this.id, chunk, false).then(() => cb(), cb);
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.localClosed = true;
    this.transport.sendData(this.id, Buffer.alloc(0), true).then(() => {
      cb();
      this.maybeDone();
    }, cb);
  }

  private maybeDone(): void {
    // Both halves closed: the stream is over once its reader has taken what is buffered.
    if (this.remoteClosed && this.localClosed && !this.destroyed) {
      if (this.readableEnded) this.destroy();
      else this.once('end', () => this.destroy());
    }
  }
}
