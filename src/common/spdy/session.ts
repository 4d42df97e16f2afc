// A SPDY/3.1 connection over a socket, in the server role (streams opened by the peer, as the
// node agent sees kube-apiserver and kubectl) or the client role (streams opened by us). As
// moby/spdystream, which the reference's clients use, it ignores SETTINGS and WINDOW_UPDATE and
// sends no WINDOW_UPDATE: the peers never send one either, so enforcing the 64 KiB window would
// stall them. Memory stays bounded by pausing the socket while a stream's reader is full.
// Any protocol error sends GOAWAY (PROTOCOL_ERROR) and closes the connection.

import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { SpdyProtocolError } from './errors.js';
import { decodeHeaderBlock, encodeHeaderBlock, type SpdyHeaders } from './header-block.js';
import { HeaderDeflater, HeaderInflater } from './header-zlib.js';
import {
  FLAG_FIN,
  FrameReader,
  GoAwayStatus,
  MAX_STREAM_ID,
  RstStatus,
  encodeDataHead,
  encodeFrame,
  type SpdyFrame,
} from './frames.js';
import { SpdyStream, type StreamTransport } from './stream.js';
import { userMessage } from '../util/errors.js';

/** Bytes queued on the socket before the session waits for it to drain. */
const SEND_BUFFER = 1024 * 1024;

export interface SpdySessionOptions {
  socket: Duplex;
  role: 'server' | 'client';
  /** Bytes read with the upgrade request that belong to the session. */
  head?: Buffer;
  /** Most streams open at once; more are refused (default 64). */
  maxStreams?: number;
  /** Largest frame payload accepted (default 1 MiB). */
  maxFrameLength?: number;
  /** Largest DATA payload we send (default 64 KiB). */
  maxSendChunk?: number;
}

export interface SpdySessionEvents {
  stream: [SpdyStream];
  /** A PING the peer started (answered already). */
  ping: [number];
  close: [SpdyProtocolError | undefined];
}

export class SpdySession extends EventEmitter<SpdySessionEvents> implements StreamTransport {
  private readonly socket: Duplex;
  private readonly reader: FrameReader;
  private readonly deflater = new HeaderDeflater();
  private readonly inflater = new HeaderInflater();
  private readonly streams = new Map<number, SpdyStream>();
  private readonly pendingReplies = new Map<number, (s: SpdyStream | Error) => void>();
  private readonly paused = new Set<number>();
  private outbound: Promise<void> = Promise.resolve();
  private inbound: Promise<void> = Promise.resolve();
  private lastPeerStream = 0;
  private nextOwnStream: number;
  private nextPing: number;
  private closed = false;
  private goingAway = false;
  private corked = false;

  constructor(private readonly options: SpdySessionOptions) {
    super();
    this.socket = options.socket;
    this.reader = new FrameReader({ maxFrameLength: options.maxFrameLength ?? 1024 * 1024 });
    this.nextOwnStream = options.role === 'client' ? 1 : 2;
    this.nextPing = options.role === 'client' ? 1 : 2;
    this.socket.on('data', (chunk: Buffer) => this.onBytes(chunk));
    // Frames already read are handled (their headers inflate asynchronously) before the end.
    this.socket.on('error', () => void this.inbound.then(() => this.teardown(undefined)));
    this.socket.on('close', () => void this.inbound.then(() => this.teardown(undefined)));
    if (options.head !== undefined && options.head.length > 0) this.onBytes(options.head);
  }

  /** Open streams (for tests that count what is left). */
  openStreams(): number {
    return this.streams.size;
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** Client role: sends SYN_STREAM and resolves when the peer's SYN_REPLY arrives. */
  openStream(headers: SpdyHeaders): Promise<SpdyStream> {
    if (this.closed) return Promise.reject(new Error('the SPDY session is closed'));
    const id = this.nextOwnStream;
    this.nextOwnStream += 2;
    const stream = new SpdyStream(id, headers, this);
    this.streams.set(id, stream);
    const replied = new Promise<SpdyStream>((resolve, reject) => {
      this.pendingReplies.set(id, (r) => (r instanceof Error ? reject(r) : resolve(r)));
    });
    this.enqueue(async () => {
      const headerBlock = await this.deflater.compress(encodeHeaderBlock(headers));
      return encodeFrame({
        type: 'syn_stream',
        streamId: id,
        associatedStreamId: 0,
        priority: 0,
        slot: 0,
        flags: 0,
        headerBlock,
      });
    }).catch((err: unknown) => {
      this.pendingReplies.get(id)?.(err instanceof Error ? err : new Error(userMessage(err)));
      this.pendingReplies.delete(id);
    });
    return replied;
  }

  ping(): void {
    const id = this.nextPing;
    this.nextPing = (this.nextPing + 2) & MAX_STREAM_ID;
    this.sendFrame({ type: 'ping', flags: 0, id });
  }

  /** Sends GOAWAY (OK) after what is queued, then ends the socket. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.goingAway = true;
    this.sendFrame({
      type: 'goaway',
      flags: 0,
      lastGoodStreamId: this.lastPeerStream,
      status: GoAwayStatus.OK,
    });
    return this.outbound.then(() => {
      this.socket.end();
      this.teardown(undefined);
    });
  }

  destroy(): void {
    this.teardown(undefined);
    this.socket.destroy();
  }

  // ---- StreamTransport ----
  sendData(streamId: number, data: Buffer, fin: boolean): Promise<void> {
    const chunk = this.options.maxSendChunk ?? 64 * 1024;
    let last: Promise<void> = Promise.resolve();
    for (let at = 0; at < data.length || (at === 0 && data.length === 0); at += chunk) {
      const piece = data.subarray(at, at + chunk);
      const isLast = at + chunk >= data.length;
      last = this.enqueue(() =>
        Promise.resolve([
          encodeDataHead(streamId, fin && isLast ? FLAG_FIN : 0, piece.length),
          piece,
        ]),
      );
      if (data.length === 0) break;
    }
    return last;
  }

  sendReset(streamId: number, status: number): void {
    this.sendFrame({ type: 'rst_stream', flags: 0, streamId, status });
  }

  readPaused(streamId: number): void {
    this.paused.add(streamId);
    this.socket.pause();
  }

  readResumed(streamId: number): void {
    if (this.paused.delete(streamId) && this.paused.size === 0) this.socket.resume();
  }

  forget(streamId: number): void {
    this.streams.delete(streamId);
    this.readResumed(streamId);
    if (this.goingAway && this.streams.size === 0) this.endGracefully();
  }

  /**
   * Ends the connection once what is queued has been written and flushed (destroying would drop
   * it).
   */
  private endGracefully(): void {
    void this.outbound.then(() => {
      this.socket.end(() => this.socket.destroy());
      this.teardown(undefined);
    });
  }

  // ---- outbound ----
  private sendFrame(frame: SpdyFrame): void {
    void this.enqueue(() => Promise.resolve(encodeFrame(frame)));
  }

  /**
   * Frames leave in the order they were queued (header compression depends on it). A frame is
   * handed to the socket at once; the next waits only while the socket's buffer is full (a
   * wait for every write to be flushed halved port-forward throughput). Write errors reach the
   * socket's 'error' event, which tears the session down.
   */
  private enqueue(build: () => Promise<Buffer | Buffer[]>): Promise<void> {
    const next = this.outbound.then(async () => {
      if (this.closed) return; // the peer is gone: what is left to send is dropped
      const bytes = await build();
      // the peer may have gone while build() was awaited
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (this.closed) return;
      this.corkUntilImmediate();
      if (Array.isArray(bytes)) for (const b of bytes) this.socket.write(b);
      else this.socket.write(bytes);
      // A socket's own high-water mark (16 KiB) is below one frame: waiting for 'drain' at it
      // would leave one frame in flight at a time. Up to SEND_BUFFER bytes may wait in it.
      if (this.socket.writableLength > SEND_BUFFER) await this.drained();
    });
    this.outbound = next.catch(() => undefined);
    return next;
  }

  /**
   * Frames queued in one turn of the event loop leave in one write (writev): over TLS that is one
   * encryption pass and one system call for what would be many (the frames of several reads of
   * a port-forwarded connection, a frame's head and its payload).
   */
  private corkUntilImmediate(): void {
    if (this.corked) return;
    this.corked = true;
    this.socket.cork();
    setImmediate(() => {
      this.corked = false;
      this.socket.uncork();
    });
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.once('drain', done);
      this.socket.once('close', done);
    });
  }

  // ---- inbound ----
  private onBytes(chunk: Buffer): void {
    if (this.closed) return;
    let frames: SpdyFrame[];
    try {
      frames = this.reader.push(chunk);
    } catch (err) {
      this.protocolError(err);
      return;
    }
    for (const frame of frames) {
      this.inbound = this.inbound
        .then(() => (this.closed ? undefined : this.handle(frame)))
        .catch((err: unknown) => this.protocolError(err));
    }
  }

  private protocolError(err: unknown): void {
    if (this.closed) return;
    const e =
      err instanceof SpdyProtocolError
        ? err
        : new SpdyProtocolError(userMessage(err), { cause: err });
    const bytes = encodeFrame({
      type: 'goaway',
      flags: 0,
      lastGoodStreamId: this.lastPeerStream,
      status: GoAwayStatus.PROTOCOL_ERROR,
    });
    void this.outbound.then(() => this.socket.end(bytes));
    this.teardown(e);
  }

  private teardown(err: SpdyProtocolError | undefined): void {
    if (this.closed) return;
    this.closed = true;
    for (const [, reply] of this.pendingReplies)
      reply(new Error('the SPDY session closed before the stream was accepted'));
    this.pendingReplies.clear();
    for (const s of [...this.streams.values()]) s.abort('');
    this.streams.clear();
    this.deflater.close();
    this.inflater.close();
    if (err !== undefined) setImmediate(() => this.socket.destroy());
    this.emit('close', err);
  }

  private async handle(f: SpdyFrame): Promise<void> {
    switch (f.type) {
      case 'data':
        this.onData(f.streamId, f.data, (f.flags & FLAG_FIN) !== 0);
        return;
      case 'syn_stream':
        this.onSynStream(f.streamId, await this.headers(f.headerBlock), (f.flags & FLAG_FIN) !== 0);
        return;
      case 'syn_reply':
        this.onSynReply(f.streamId, await this.headers(f.headerBlock), (f.flags & FLAG_FIN) !== 0);
        return;
      case 'headers':
        await this.headers(f.headerBlock); // kept for the zlib state; nothing uses late headers
        if ((f.flags & FLAG_FIN) !== 0) this.streams.get(f.streamId)?.receiveFin();
        return;
      case 'rst_stream':
        this.streams.get(f.streamId)?.abort('');
        this.pendingReplies.get(f.streamId)?.(
          new Error(`the peer reset stream ${f.streamId} (status ${f.status})`),
        );
        this.pendingReplies.delete(f.streamId);
        return;
      case 'ping':
        if ((f.id & 1) === (this.options.role === 'server' ? 1 : 0)) {
          this.sendFrame(f);
          this.emit('ping', f.id);
        }
        return;
      case 'goaway':
        this.goingAway = true;
        if (this.streams.size === 0) this.endGracefully();
        return;
      case 'settings':
      case 'window_update':
      case 'unknown':
        return; // as spdystream: no flow control, no settings
    }
  }

  private async headers(block: Buffer): Promise<SpdyHeaders> {
    return decodeHeaderBlock(await this.inflater.decompress(block));
  }

  private onData(id: number, data: Buffer, fin: boolean): void {
    const s = this.streams.get(id);
    if (s === undefined) {
      this.sendReset(id, RstStatus.INVALID_STREAM);
      return;
    }
    s.receive(data, fin);
  }

  private onSynStream(id: number, headers: SpdyHeaders, fin: boolean): void {
    const peerParity = this.options.role === 'server' ? 1 : 0;
    if ((id & 1) !== peerParity || id <= this.lastPeerStream) {
      throw new SpdyProtocolError(
        `SYN_STREAM with stream id ${id} after ${this.lastPeerStream}; accepted: a new ` +
          `${peerParity === 1 ? 'odd' : 'even'} id above the last`,
        { frame: 'SYN_STREAM' },
      );
    }
    this.lastPeerStream = id;
    if (this.goingAway || this.streams.size >= (this.options.maxStreams ?? 64)) {
      this.sendReset(id, RstStatus.REFUSED_STREAM);
      return;
    }
    const stream = new SpdyStream(id, headers, this);
    this.streams.set(id, stream);
    // The reference's server replies at once with no headers (httpstream/spdy newStreamHandler).
    void this.enqueue(async () =>
      encodeFrame({
        type: 'syn_reply',
        streamId: id,
        flags: 0,
        headerBlock: await this.deflater.compress(encodeHeaderBlock(new Map())),
      }),
    ).catch(() => undefined);
    if (fin) stream.receiveFin();
    this.emit('stream', stream);
  }

  private onSynReply(id: number, _headers: SpdyHeaders, fin: boolean): void {
    const pending = this.pendingReplies.get(id);
    const stream = this.streams.get(id);
    if (pending === undefined || stream === undefined) {
      throw new SpdyProtocolError(`SYN_REPLY for stream ${id}, which awaits no reply`, {
        frame: 'SYN_REPLY',
      });
    }
    this.pendingReplies.delete(id);
    if (fin) stream.receiveFin();
    pending(stream);
  }
}
