// Fuzz of the TLS fronts' inner-connection header (src/apiserver/front/frame.ts): any facts a
// front can send come back whole; on random bytes the reader and the decoder return a header or
// throw FrameError and nothing else.
// Inputs per property: fuzzParams() (FUZZ_RUNS for a long run).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  decodeFrameBody,
  encodeFrame,
  FrameError,
  FrameReader,
} from '../../src/apiserver/front/frame.js';
import type { PeerFacts } from '../../src/apiserver/front/peer.js';
import { fuzzParams } from '../helpers/fuzz-runs.js';

const SECRET = 'f'.repeat(64);

const names = fc.array(fc.string({ maxLength: 40 }), { maxLength: 5 });
const facts: fc.Arbitrary<PeerFacts> = fc.record(
  {
    remoteAddress: fc.string({ maxLength: 64 }),
    remotePort: fc.integer({ min: 0, max: 65535 }),
    certificate: fc.record(
      {
        authorized: fc.boolean(),
        authorizationError: fc.string({ maxLength: 60 }),
        commonNames: names,
        organizations: names,
        sha256: fc.oneof(
          fc.constant(''),
          fc
            .uint8Array({ minLength: 32, maxLength: 32 })
            .map((a) => Buffer.from(a).toString('hex')),
        ),
      },
      { noNullPrototype: true },
    ),
  },
  { requiredKeys: ['remoteAddress', 'remotePort'], noNullPrototype: true },
);

test('any facts survive encode, any split, decode', () => {
  fc.assert(
    fc.property(facts, fc.nat(), (f, at) => {
      const bytes = encodeFrame(SECRET, f);
      const split = at % (bytes.length + 1);
      const r = new FrameReader();
      const body = r.push(bytes.subarray(0, split)) ?? r.push(bytes.subarray(split));
      assert.ok(body !== undefined);
      assert.deepEqual(decodeFrameBody(body, SECRET), f);
    }),
    fuzzParams(300),
  );
});

function onlyFrameErrors(run: () => unknown): void {
  try {
    run();
  } catch (err) {
    if (!(err instanceof FrameError)) throw err;
  }
}

test('random bytes: a header or a FrameError, never anything else', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), (a) => {
      const b = Buffer.from(a);
      onlyFrameErrors(() => new FrameReader().push(b));
      onlyFrameErrors(() => decodeFrameBody(b, SECRET));
    }),
    fuzzParams(500),
  );
});

test('random JSON: decoded or refused with a FrameError', () => {
  fc.assert(
    fc.property(fc.json(), (j) => {
      onlyFrameErrors(() => decodeFrameBody(Buffer.from(j), SECRET));
    }),
    fuzzParams(500),
  );
});
