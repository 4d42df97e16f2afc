// Fuzz of what a streaming client sends the agent outside the frame layers: WebSocket channel
// messages of any bytes (binary and base64 protocols, v5 close signals) never throw and only
// reach readable channels; terminal-size messages of any text are a size or a refusal naming
// what is accepted; port query values are ports or the reference's refusal, never a throw.
// Inputs per property: fuzzParams() (FUZZ_RUNS for a long run).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import type { WebSocket } from 'ws';
import { ChannelConnection } from '../../src/agent/server/streaming/ws-channels.js';
import { parseTerminalSize, readSizes } from '../../src/agent/server/streaming/exec-io.js';
import { parsePorts } from '../../src/agent/server/streaming/ws-port-forward.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';

class FakeWs extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  paused = 0;
  pause(): void {
    this.paused++;
  }
  resume(): void {}
  send(_d: unknown, _o: unknown, cb: (err?: Error) => void): void {
    cb();
  }
  close(): void {
    this.emit('close', 1000);
  }
  terminate(): void {
    this.emit('close', 1006);
  }
}

/** What the reference's Conn delivers to channel 0 of a binary connection for these messages. */
function expectedStdin(msgs: readonly Uint8Array[], v5: boolean): Buffer {
  const out: Buffer[] = [];
  let closed = false;
  for (const m of msgs) {
    if (m.length === 0) continue;
    if (v5 && m[0] === 255) {
      if (m.length === 2 && m[1] === 0) closed = true;
      continue;
    }
    if (m[0] === 0 && !closed) out.push(Buffer.from(m.subarray(1)));
  }
  return Buffer.concat(out);
}

test('channel messages of any bytes: no throw; channel 0 gets exactly its messages (until a v5 close), unread channels nothing', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 40 }),
      fc.boolean(),
      fc.boolean(),
      async (msgs, binary, v5) => {
        const ws = new FakeWs();
        const conn = new ChannelConnection({
          ws: ws as unknown as WebSocket,
          binary,
          modes: ['read', 'write', 'ignore', 'write', 'read'],
          closeSignal: v5,
        });
        const chunks: Buffer[] = [];
        conn.reader(0)!.on('data', (c: Buffer) => chunks.push(c));
        conn.reader(4)!.resume();
        for (const m of msgs) ws.emit('message', Buffer.from(m));
        assert.equal(conn.reader(1), undefined);
        assert.equal(conn.reader(2), undefined);
        ws.emit('close', 1000);
        assert.ok(conn.isClosed());
        await new Promise((r) => setImmediate(r));
        if (binary) assert.deepEqual(Buffer.concat(chunks), expectedStdin(msgs, v5));
      },
    ),
    fuzzParams(300),
  );
});

test('terminal sizes of any text: a size in 0..65535 or a refusal that names what is accepted', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ maxLength: 80 }),
        fc.json(),
        fc.record({ Width: fc.integer(), Height: fc.integer() }).map((o) => JSON.stringify(o)),
      ),
      (text) => {
        const r = parseTerminalSize(text);
        if (typeof r === 'string')
          assert.match(r, /accepted: \{"Width":<0-65535>,"Height":<0-65535>\}/);
        else assert.ok(r.width >= 0 && r.width <= 65535 && r.height >= 0 && r.height <= 65535);
      },
    ),
    fuzzParams(500),
  );
});

test('a resize stream of any bytes: sizes or one refusal, then nothing; its buffer stays bounded', () => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ maxLength: 2000 }), { maxLength: 10 }), (chunks) => {
      const s = new PassThrough();
      let bad = 0;
      readSizes(
        s,
        () => undefined,
        () => bad++,
      );
      for (const c of chunks) s.write(Buffer.from(c));
      assert.ok(bad <= 1);
    }),
    fuzzParams(200),
  );
});

test("port query values of any text: ports 1..65535 or the reference's refusal", () => {
  fc.assert(
    fc.property(fc.array(fc.string({ maxLength: 20 }), { maxLength: 5 }), (values) => {
      const url = new URL('https://x/portForward/ns/p');
      for (const v of values) url.searchParams.append('port', v);
      const r = parsePorts(url);
      if (typeof r === 'string')
        assert.match(
          r,
          /^(query parameter "port" is required|query parameter "port" cannot be empty|unable to parse ".*" as a port|port ".*" must be > 0|\d+ ports: accepted)/s,
        );
      else assert.ok(r.length > 0 && r.every((p) => Number.isInteger(p) && p >= 1 && p <= 65535));
    }),
    fuzzParams(500),
  );
});
