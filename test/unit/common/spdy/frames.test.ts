// SPDY/3.1 framing against byte sequences written from the spec and captured from real peers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adler32 } from '../../../helpers/adler32.js';
import { SPDY3_DICTIONARY } from '../../../../src/common/spdy/dictionary.js';
import { FrameReader, encodeFrame, type SpdyFrame } from '../../../../src/common/spdy/frames.js';
import { decodeHeaderBlock, encodeHeaderBlock } from '../../../../src/common/spdy/header-block.js';
import { HeaderDeflater, HeaderInflater } from '../../../../src/common/spdy/header-zlib.js';
import { SpdyProtocolError } from '../../../../src/common/spdy/errors.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

test('the SPDY/3 dictionary is 1,423 bytes and has the id that captured SPDY/3 header blocks carry', () => {
  assert.equal(SPDY3_DICTIONARY.length, 1423);
  // A SYN_STREAM captured from Firefox (proxygen's SPDYCodecTest): the zlib header of its block is
  // 38 ea and the dictionary id e3 c6 a7 c2, the Adler-32 of the SPDY/3 dictionary.
  const captured = hex('80 03 00 01 01 00 04 1a 00 00 00 01 00 00 00 00 00 00 38 ea e3 c6 a7 c2');
  assert.equal(adler32(SPDY3_DICTIONARY), captured.readUInt32BE(20));
});

test('control and data frames encode to the bytes of the spec', () => {
  assert.deepEqual(
    encodeFrame({ type: 'ping', flags: 0, id: 1 }),
    hex('80 03 00 06 00 00 00 04 00 00 00 01'),
  );
  assert.deepEqual(
    encodeFrame({ type: 'rst_stream', flags: 0, streamId: 3, status: 5 }),
    hex('80 03 00 03 00 00 00 08 00 00 00 03 00 00 00 05'),
  );
  assert.deepEqual(
    encodeFrame({ type: 'goaway', flags: 0, lastGoodStreamId: 7, status: 1 }),
    hex('80 03 00 07 00 00 00 08 00 00 00 07 00 00 00 01'),
  );
  assert.deepEqual(
    encodeFrame({ type: 'window_update', flags: 0, streamId: 1, delta: 65536 }),
    hex('80 03 00 09 00 00 00 08 00 00 00 01 00 01 00 00'),
  );
  assert.deepEqual(
    encodeFrame({ type: 'data', flags: 1, streamId: 5, data: Buffer.from('hi') }),
    hex('00 00 00 05 01 00 00 02 68 69'),
  );
  assert.deepEqual(
    encodeFrame({ type: 'settings', flags: 0, entries: [{ flags: 0, id: 7, value: 65536 }] }),
    hex('80 03 00 04 00 00 00 0c 00 00 00 01 00 00 00 07 00 01 00 00'),
  );
  assert.deepEqual(
    encodeFrame({
      type: 'syn_stream',
      flags: 2,
      streamId: 1,
      associatedStreamId: 0,
      priority: 7,
      slot: 0,
      headerBlock: hex('aa'),
    }),
    hex('80 03 00 01 02 00 00 0b 00 00 00 01 00 00 00 00 e0 00 aa'),
  );
});

test('the reader takes frames fed one byte at a time and decodes what the encoder wrote', () => {
  const frames: SpdyFrame[] = [
    { type: 'ping', flags: 0, id: 2 },
    { type: 'data', flags: 1, streamId: 9, data: Buffer.from('payload') },
    { type: 'syn_reply', flags: 0, streamId: 9, headerBlock: hex('0102') },
    { type: 'headers', flags: 1, streamId: 9, headerBlock: hex('03') },
  ];
  const bytes = Buffer.concat(frames.map(encodeFrame));
  const reader = new FrameReader();
  const out: SpdyFrame[] = [];
  for (const b of bytes) out.push(...reader.push(Buffer.from([b])));
  assert.deepEqual(out, frames);
  assert.equal(reader.pending(), 0);
});

test('a bad frame is a SpdyProtocolError naming the frame and what is accepted', () => {
  const cases: [string, RegExp][] = [
    ['80 02 00 06 00 00 00 04 00 00 00 01', /control frame of version 2; accepted: version 3/],
    [
      '80 03 00 06 00 00 00 05 00 00 00 01 00',
      /PING frame has a payload of 5 bytes; accepted: 4 bytes/,
    ],
    ['80 03 00 03 00 00 00 08 00 00 00 00 00 00 00 01', /RST_STREAM frame names stream 0/],
    ['00 00 00 00 00 00 00 00', /DATA frame names stream 0/],
    [
      '80 03 00 04 00 00 00 04 00 00 00 09',
      /SETTINGS frame has a payload of 4 bytes; accepted: 4 \+ 8 bytes for each of the 9 entries/,
    ],
    ['80 03 00 09 00 00 00 08 00 00 00 01 00 00 00 00', /WINDOW_UPDATE frame has a delta of 0/],
  ];
  for (const [bytes, message] of cases) {
    assert.throws(
      () => new FrameReader().push(hex(bytes)),
      (e: unknown) => e instanceof SpdyProtocolError && message.test(e.message),
      bytes,
    );
  }
  assert.throws(
    () => new FrameReader({ maxFrameLength: 10 }).push(hex('00 00 00 01 00 00 00 0b')),
    /frame of 11 bytes is over the limit of 10/,
  );
});

test('an unknown control frame type is passed up as unknown (the spec: ignore it)', () => {
  assert.deepEqual(new FrameReader().push(hex('80 03 00 0a 00 00 00 00')), [
    { type: 'unknown', controlType: 10, flags: 0 },
  ]);
});

test('header blocks: the SPDY/3 layout, NUL-joined values, and the name rules', () => {
  const block = encodeHeaderBlock(
    new Map([
      ['streamtype', ['error']],
      ['x', ['a', 'b']],
    ]),
  );
  assert.deepEqual(
    block,
    hex('00000002 0000000a 73747265616d74797065 00000005 6572726f72 00000001 78 00000003 610062'),
  );
  assert.deepEqual(
    decodeHeaderBlock(block),
    new Map([
      ['streamtype', ['error']],
      ['x', ['a', 'b']],
    ]),
  );
  assert.throws(
    () => decodeHeaderBlock(hex('00000001 00000001 41 00000000')),
    /name "A" is not lower case/,
  );
  assert.throws(
    () => decodeHeaderBlock(hex('00000002 00000001 61 00000000 00000001 61 00000000')),
    /name "a" appears twice/,
  );
  assert.throws(() => decodeHeaderBlock(hex('00000001 000000ff 61')), /claims 255 bytes/);
  assert.throws(
    () => decodeHeaderBlock(hex('00001000')),
    /announces 4096 pairs; accepted: at most 256/,
  );
});

test('header compression: blocks share one zlib stream per direction, started from the dictionary', async () => {
  const deflater = new HeaderDeflater();
  const inflater = new HeaderInflater();
  try {
    const first = await deflater.compress(encodeHeaderBlock(new Map([['streamtype', ['stdout']]])));
    // zlib header (78 xx) then the dictionary id e3c6a7c2: the peer needs the SPDY/3 dictionary.
    assert.equal(first[0], 0x78);
    assert.equal(first.readUInt32BE(2), 0xe3c6a7c2);
    const second = await deflater.compress(
      encodeHeaderBlock(new Map([['streamtype', ['stderr']]])),
    );
    assert.deepEqual(
      decodeHeaderBlock(await inflater.decompress(first)),
      new Map([['streamtype', ['stdout']]]),
    );
    assert.deepEqual(
      decodeHeaderBlock(await inflater.decompress(second)),
      new Map([['streamtype', ['stderr']]]),
    );
  } finally {
    deflater.close();
    inflater.close();
  }
});

test('a header block that inflates past the limit is refused (zlib bomb)', async () => {
  const deflater = new HeaderDeflater();
  const inflater = new HeaderInflater(1024);
  try {
    const bomb = await deflater.compress(Buffer.alloc(1 << 20));
    await assert.rejects(
      inflater.decompress(bomb),
      (e: unknown) =>
        e instanceof SpdyProtocolError && /inflates to over 1024 bytes/.test(e.message),
    );
  } finally {
    deflater.close();
    inflater.close();
  }
});
