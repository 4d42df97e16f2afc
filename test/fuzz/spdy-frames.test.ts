// Fuzz of the SPDY/3.1 framing (src/common/spdy/): every frame survives encode -> decode in any
// split of its bytes; header blocks round-trip through encoding and zlib; on random bytes the
// decoder returns frames or throws SpdyProtocolError and nothing else, in time linear in the
// input (it never waits for more than the bytes it holds); a session fed random bytes closes
// with a typed error or stays open, and never throws.
// Inputs per property: fuzzParams() (FUZZ_RUNS for a long run).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { FrameReader, encodeFrame, type SpdyFrame } from '../../src/common/spdy/frames.js';
import { decodeHeaderBlock, encodeHeaderBlock } from '../../src/common/spdy/header-block.js';
import { HeaderDeflater, HeaderInflater } from '../../src/common/spdy/header-zlib.js';
import { SpdyProtocolError } from '../../src/common/spdy/errors.js';
import { SpdySession } from '../../src/common/spdy/session.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';

const streamId = fc.integer({ min: 1, max: 0x7fffffff });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const flags = fc.integer({ min: 0, max: 255 });
const bytes = (max: number): fc.Arbitrary<Buffer> =>
  fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a));

// Plain objects (fc.record builds null-prototype ones, which deepEqual tells apart).
function rec<T>(shape: { [K in keyof T]: fc.Arbitrary<T[K]> }): fc.Arbitrary<T> {
  return fc.record(shape, { noNullPrototype: true }) as fc.Arbitrary<T>;
}

const frame: fc.Arbitrary<SpdyFrame> = fc.oneof(
  rec({ type: fc.constant('data' as const), streamId, flags, data: bytes(300) }),
  rec({
    type: fc.constant('syn_stream' as const),
    streamId,
    associatedStreamId: fc.integer({ min: 0, max: 0x7fffffff }),
    priority: fc.integer({ min: 0, max: 7 }),
    slot: fc.integer({ min: 0, max: 255 }),
    flags,
    headerBlock: bytes(100),
  }),
  rec({ type: fc.constant('syn_reply' as const), streamId, flags, headerBlock: bytes(100) }),
  rec({ type: fc.constant('headers' as const), streamId, flags, headerBlock: bytes(100) }),
  rec({ type: fc.constant('rst_stream' as const), streamId, flags, status: u32 }),
  rec({
    type: fc.constant('settings' as const),
    flags,
    entries: fc.array(rec({ flags, id: fc.integer({ min: 0, max: 0xffffff }), value: u32 }), {
      maxLength: 8,
    }),
  }),
  rec({ type: fc.constant('ping' as const), flags, id: u32 }),
  rec({
    type: fc.constant('goaway' as const),
    flags,
    lastGoodStreamId: fc.integer({ min: 0, max: 0x7fffffff }),
    status: u32,
  }),
  rec({
    type: fc.constant('window_update' as const),
    streamId: fc.integer({ min: 0, max: 0x7fffffff }),
    flags,
    delta: streamId,
  }),
);

test('every frame decodes to itself from any split of its bytes', () => {
  fc.assert(
    fc.property(
      fc.array(frame, { minLength: 1, maxLength: 5 }),
      fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 20 }),
      (frames, cuts) => {
        const all = Buffer.concat(frames.map(encodeFrame));
        const reader = new FrameReader();
        const out: SpdyFrame[] = [];
        let at = 0;
        for (const cut of cuts) {
          out.push(...reader.push(all.subarray(at, at + cut)));
          at = Math.min(all.length, at + cut);
        }
        out.push(...reader.push(all.subarray(at)));
        assert.deepEqual(out, frames);
      },
    ),
    fuzzParams(300),
  );
});

const headerName = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-:'),
  minLength: 1,
  maxLength: 20,
});
const headerValue = fc.string({ unit: fc.constantFrom(...'abcXYZ019 -_/.:'), maxLength: 40 });

test('header blocks round-trip through the block encoding and one zlib stream per direction', async () => {
  const deflater = new HeaderDeflater();
  const inflater = new HeaderInflater();
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.tuple(headerName, fc.array(headerValue, { minLength: 1, maxLength: 3 })),
          { selector: ([n]) => n, maxLength: 12 },
        ),
        async (pairs) => {
          const headers = new Map(pairs);
          const block = await deflater.compress(encodeHeaderBlock(headers));
          assert.deepEqual(decodeHeaderBlock(await inflater.decompress(block)), headers);
        },
      ),
      fuzzParams(200),
    );
  } finally {
    deflater.close();
    inflater.close();
  }
});

test('on random bytes the decoder returns frames or throws SpdyProtocolError, and nothing else', () => {
  const input = fc.oneof(
    bytes(200),
    // Valid control-frame prefixes followed by noise reach the per-type checks.
    fc
      .tuple(fc.integer({ min: 0, max: 12 }), flags, fc.integer({ min: 0, max: 64 }), bytes(80))
      .map(([type, f, len, rest]) =>
        Buffer.concat([Buffer.from([0x80, 0x03, 0x00, type, f, 0, 0, len]), rest]),
      ),
  );
  fc.assert(
    fc.property(input, (data) => {
      const reader = new FrameReader({ maxFrameLength: 1024 });
      try {
        reader.push(data);
        // What it keeps is never more than one unfinished frame's worth.
        assert.ok(reader.pending() <= 8 + 1024);
      } catch (e) {
        assert.ok(e instanceof SpdyProtocolError, `unexpected ${String(e)}`);
      }
    }),
    fuzzParams(2000),
  );
});

test('random header blocks into the inflater reject with SpdyProtocolError or decode, never hang', async () => {
  await fc.assert(
    fc.asyncProperty(bytes(120), async (data) => {
      const inflater = new HeaderInflater(4096);
      try {
        decodeHeaderBlock(await inflater.decompress(data));
      } catch (e) {
        assert.ok(e instanceof SpdyProtocolError, `unexpected ${String(e)}`);
      } finally {
        inflater.close();
      }
    }),
    fuzzParams(300),
  );
});

test('a server session fed random bytes never throws: it closes with a typed error or waits', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(bytes(64), { maxLength: 4 }), async (chunks) => {
      const socket = new PassThrough();
      const session = new SpdySession({ socket, role: 'server' });
      let closedWith: unknown = 'open';
      session.on('close', (err) => {
        closedWith = err;
      });
      for (const c of chunks) socket.emit('data', c);
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setTimeout(r, 1));
      assert.ok(
        closedWith === 'open' ||
          closedWith === undefined ||
          closedWith instanceof SpdyProtocolError,
      );
      session.destroy();
    }),
    fuzzParams(200),
  );
});
