// SPDY/3.1 frames (draft-mbelshe-httpbis-spdy-00 and the 3.1 amendment): their in-memory shape,
// the encoder and the incremental decoder. Header blocks stay compressed at this layer
// (header-block.ts and header-zlib.ts deal with them), so this file is synchronous and pure.
// Every length and field a peer sends is checked; a bad frame is a SpdyProtocolError.

import { SpdyProtocolError } from './errors.js';

export const SPDY_VERSION = 3;
export const FLAG_FIN = 0x01;
export const FLAG_UNIDIRECTIONAL = 0x02;
export const MAX_STREAM_ID = 0x7fffffff;
/** The largest frame payload SPDY can carry (24-bit length). */
export const MAX_FRAME_LENGTH = 0xffffff;

export const RstStatus = {
  PROTOCOL_ERROR: 1,
  INVALID_STREAM: 2,
  REFUSED_STREAM: 3,
  UNSUPPORTED_VERSION: 4,
  CANCEL: 5,
  INTERNAL_ERROR: 6,
  FLOW_CONTROL_ERROR: 7,
  STREAM_IN_USE: 8,
  STREAM_ALREADY_CLOSED: 9,
  FRAME_TOO_LARGE: 11,
} as const;

export const GoAwayStatus = { OK: 0, PROTOCOL_ERROR: 1, INTERNAL_ERROR: 2 } as const;

export interface SettingsEntry {
  readonly flags: number;
  readonly id: number;
  readonly value: number;
}

export type SpdyFrame =
  | {
      readonly type: 'data';
      readonly streamId: number;
      readonly flags: number;
      readonly data: Buffer;
    }
  | {
      readonly type: 'syn_stream';
      readonly streamId: number;
      readonly associatedStreamId: number;
      readonly priority: number;
      readonly slot: number;
      readonly flags: number;
      /** The compressed header block. */
      readonly headerBlock: Buffer;
    }
  | {
      readonly type: 'syn_reply';
      readonly streamId: number;
      readonly flags: number;
      readonly headerBlock: Buffer;
    }
  | {
      readonly type: 'rst_stream';
      readonly streamId: number;
      readonly flags: number;
      readonly status: number;
    }
  | {
      readonly type: 'settings';
      readonly flags: number;
      readonly entries: readonly SettingsEntry[];
    }
  | { readonly type: 'ping'; readonly flags: number; readonly id: number }
  | {
      readonly type: 'goaway';
      readonly flags: number;
      readonly lastGoodStreamId: number;
      readonly status: number;
    }
  | {
      readonly type: 'headers';
      readonly streamId: number;
      readonly flags: number;
      readonly headerBlock: Buffer;
    }
  | {
      readonly type: 'window_update';
      readonly streamId: number;
      readonly flags: number;
      readonly delta: number;
    }
  /** A control frame of a type SPDY/3.1 does not define: the spec says to ignore it. */
  | { readonly type: 'unknown'; readonly controlType: number; readonly flags: number };

const TYPE_CODES = {
  syn_stream: 1,
  syn_reply: 2,
  rst_stream: 3,
  settings: 4,
  ping: 6,
  goaway: 7,
  headers: 8,
  window_update: 9,
} as const;

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  if (payload.length > MAX_FRAME_LENGTH)
    throw new RangeError(
      `SPDY frame payload of ${payload.length} bytes is over ${MAX_FRAME_LENGTH}`,
    );
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE((((flags & 0xff) << 24) | payload.length) >>> 0, 4);
  return Buffer.concat([head, payload]);
}

function u32(...values: number[]): Buffer {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, i * 4));
  return b;
}

/** The 8-byte head of a DATA frame (sent before its payload, which is not copied). */
export function encodeDataHead(streamId: number, flags: number, length: number): Buffer {
  if (length > MAX_FRAME_LENGTH)
    throw new RangeError(`SPDY DATA payload of ${length} bytes is over ${MAX_FRAME_LENGTH}`);
  const head = Buffer.allocUnsafe(8);
  head.writeUInt32BE(streamId & MAX_STREAM_ID, 0);
  head.writeUInt32BE((((flags & 0xff) << 24) | length) >>> 0, 4);
  return head;
}

/** The bytes of one frame. Throws a RangeError for a frame our own code built wrong. */
export function encodeFrame(f: SpdyFrame): Buffer {
  switch (f.type) {
    case 'data': {
      if (f.data.length > MAX_FRAME_LENGTH)
        throw new RangeError(
          `SPDY DATA payload of ${f.data.length} bytes is over ${MAX_FRAME_LENGTH}`,
        );
      const head = Buffer.alloc(8);
      head.writeUInt32BE(f.streamId & MAX_STREAM_ID, 0);
      head.writeUInt32BE((((f.flags & 0xff) << 24) | f.data.length) >>> 0, 4);
      return Buffer.concat([head, f.data]);
    }
    case 'syn_stream': {
      const fixed = Buffer.alloc(10);
      fixed.writeUInt32BE(f.streamId & MAX_STREAM_ID, 0);
      fixed.writeUInt32BE(f.associatedStreamId & MAX_STREAM_ID, 4);
      fixed.writeUInt8((f.priority & 0x7) << 5, 8);
      fixed.writeUInt8(f.slot & 0xff, 9);
      return controlFrame(TYPE_CODES.syn_stream, f.flags, Buffer.concat([fixed, f.headerBlock]));
    }
    case 'syn_reply':
    case 'headers':
      return controlFrame(
        TYPE_CODES[f.type],
        f.flags,
        Buffer.concat([u32(f.streamId & MAX_STREAM_ID), f.headerBlock]),
      );
    case 'rst_stream':
      return controlFrame(
        TYPE_CODES.rst_stream,
        f.flags,
        u32(f.streamId & MAX_STREAM_ID, f.status),
      );
    case 'settings': {
      const body = Buffer.alloc(4 + f.entries.length * 8);
      body.writeUInt32BE(f.entries.length, 0);
      f.entries.forEach((e, i) => {
        body.writeUInt32BE((((e.flags & 0xff) << 24) | (e.id & 0xffffff)) >>> 0, 4 + i * 8);
        body.writeUInt32BE(e.value >>> 0, 8 + i * 8);
      });
      return controlFrame(TYPE_CODES.settings, f.flags, body);
    }
    case 'ping':
      return controlFrame(TYPE_CODES.ping, f.flags, u32(f.id));
    case 'goaway':
      return controlFrame(
        TYPE_CODES.goaway,
        f.flags,
        u32(f.lastGoodStreamId & MAX_STREAM_ID, f.status),
      );
    case 'window_update':
      return controlFrame(
        TYPE_CODES.window_update,
        f.flags,
        u32(f.streamId & MAX_STREAM_ID, f.delta & MAX_STREAM_ID),
      );
    case 'unknown':
      return controlFrame(f.controlType, f.flags, Buffer.alloc(0));
  }
}

function expectLength(
  name: string,
  length: number,
  want: number | ((n: number) => boolean),
  accepted: string,
): void {
  const ok = typeof want === 'number' ? length === want : want(length);
  if (!ok)
    throw new SpdyProtocolError(
      `${name} frame has a payload of ${length} bytes; accepted: ${accepted}`,
      { frame: name },
    );
}

function nonZeroStream(name: string, id: number): number {
  if (id === 0)
    throw new SpdyProtocolError(
      `${name} frame names stream 0; accepted: a stream id from 1 to ${MAX_STREAM_ID}`,
      { frame: name },
    );
  return id;
}

function decodeSettings(flags: number, p: Buffer): SpdyFrame {
  expectLength('SETTINGS', p.length, (n) => n >= 4, 'at least 4 bytes');
  const count = p.readUInt32BE(0);
  expectLength(
    'SETTINGS',
    p.length,
    4 + count * 8,
    `4 + 8 bytes for each of the ${count} entries it announces`,
  );
  const entries: SettingsEntry[] = [];
  for (let i = 0; i < count; i++) {
    const word = p.readUInt32BE(4 + i * 8);
    entries.push({ flags: word >>> 24, id: word & 0xffffff, value: p.readUInt32BE(8 + i * 8) });
  }
  return { type: 'settings', flags, entries };
}

function decodeControl(type: number, flags: number, p: Buffer): SpdyFrame {
  switch (type) {
    case 1:
      expectLength('SYN_STREAM', p.length, (n) => n >= 10, 'at least 10 bytes');
      return {
        type: 'syn_stream',
        flags,
        streamId: nonZeroStream('SYN_STREAM', p.readUInt32BE(0) & MAX_STREAM_ID),
        associatedStreamId: p.readUInt32BE(4) & MAX_STREAM_ID,
        priority: p.readUInt8(8) >>> 5,
        slot: p.readUInt8(9),
        headerBlock: p.subarray(10),
      };
    case 2:
    case 8: {
      const name = type === 2 ? 'SYN_REPLY' : 'HEADERS';
      expectLength(name, p.length, (n) => n >= 4, 'at least 4 bytes');
      const streamId = nonZeroStream(name, p.readUInt32BE(0) & MAX_STREAM_ID);
      return {
        type: type === 2 ? 'syn_reply' : 'headers',
        flags,
        streamId,
        headerBlock: p.subarray(4),
      };
    }
    case 3:
      expectLength('RST_STREAM', p.length, 8, '8 bytes');
      return {
        type: 'rst_stream',
        flags,
        streamId: nonZeroStream('RST_STREAM', p.readUInt32BE(0) & MAX_STREAM_ID),
        status: p.readUInt32BE(4),
      };
    case 4:
      return decodeSettings(flags, p);
    case 6:
      expectLength('PING', p.length, 4, '4 bytes');
      return { type: 'ping', flags, id: p.readUInt32BE(0) };
    case 7:
      // SPDY/3 has 8 bytes (last good stream, status); some SPDY/2-era peers send 4.
      expectLength('GOAWAY', p.length, (n) => n === 8 || n === 4, '8 bytes');
      return {
        type: 'goaway',
        flags,
        lastGoodStreamId: p.readUInt32BE(0) & MAX_STREAM_ID,
        status: p.length === 8 ? p.readUInt32BE(4) : 0,
      };
    case 9: {
      expectLength('WINDOW_UPDATE', p.length, 8, '8 bytes');
      const delta = p.readUInt32BE(4) & MAX_STREAM_ID;
      if (delta === 0)
        throw new SpdyProtocolError('WINDOW_UPDATE frame has a delta of 0; accepted: 1 to 2^31-1', {
          frame: 'WINDOW_UPDATE',
        });
      return { type: 'window_update', flags, streamId: p.readUInt32BE(0) & MAX_STREAM_ID, delta };
    }
    default:
      return { type: 'unknown', controlType: type, flags };
  }
}

export interface FrameReaderOptions {
  /** The largest payload accepted from the peer (default 16 MiB - 1, all that SPDY can say). */
  maxFrameLength?: number;
}

/**
 * Decodes frames from a byte stream fed in arbitrary pieces. `push` returns every frame now
 * complete; it throws a SpdyProtocolError for a bad frame (the reader is then unusable).
 */
export class FrameReader {
  // Chunks as received; a frame is joined (copied) only when it spans chunks.
  private chunks: Buffer[] = [];
  private total = 0;
  private readonly maxFrameLength: number;

  constructor(options: FrameReaderOptions = {}) {
    this.maxFrameLength = options.maxFrameLength ?? MAX_FRAME_LENGTH;
  }

  /** Bytes received but not yet part of a whole frame. */
  pending(): number {
    return this.total;
  }

  push(chunk: Buffer): SpdyFrame[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.total += chunk.length;
    }
    const frames: SpdyFrame[] = [];
    for (;;) {
      const frame = this.next();
      if (frame === undefined) return frames;
      frames.push(frame);
    }
  }

  /** Buffered chunk `k`; callers stay within `total`, so it is there. */
  private chunk(k: number): Buffer {
    const c = this.chunks[k];
    if (c === undefined) throw new Error(`spdy: frame buffer read past its ${this.total} bytes`);
    return c;
  }

  /** The first `n` bytes (n <= total) as one buffer, without consuming them. */
  private peek(n: number): Buffer {
    const first = this.chunk(0);
    if (first.length >= n) return first.subarray(0, n);
    // Only the chunks that hold the first n bytes are joined (not everything buffered).
    let k = 0;
    let len = 0;
    while (len < n) len += this.chunk(k++).length;
    const joined = Buffer.concat(this.chunks.slice(0, k), len);
    this.chunks.splice(0, k, joined);
    return joined.subarray(0, n);
  }

  private consume(n: number): void {
    this.total -= n;
    while (n > 0) {
      const first = this.chunk(0);
      if (first.length > n) {
        this.chunks[0] = first.subarray(n);
        return;
      }
      n -= first.length;
      this.chunks.shift();
    }
  }

  private next(): SpdyFrame | undefined {
    if (this.total < 8) return undefined;
    const b = this.peek(8);
    const length = b.readUInt32BE(4) & 0xffffff;
    const flags = b.readUInt8(4);
    const control = (b.readUInt8(0) & 0x80) !== 0;
    if (control) {
      const version = b.readUInt16BE(0) & 0x7fff;
      if (version !== SPDY_VERSION)
        throw new SpdyProtocolError(
          `control frame of version ${version}; accepted: version ${SPDY_VERSION}`,
        );
    }
    if (length > this.maxFrameLength)
      throw new SpdyProtocolError(
        `frame of ${length} bytes is over the limit of ${this.maxFrameLength}`,
      );
    if (this.total < 8 + length) return undefined;
    const whole = this.peek(8 + length);
    const payload = whole.subarray(8);
    this.consume(8 + length);
    if (!control)
      return {
        type: 'data',
        streamId: nonZeroStream('DATA', whole.readUInt32BE(0) & MAX_STREAM_ID),
        flags,
        data: payload,
      };
    return decodeControl(whole.readUInt16BE(2), flags, payload);
  }
}
