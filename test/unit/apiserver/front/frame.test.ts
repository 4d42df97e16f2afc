// The header a TLS front sends first on each inner connection: what it carries survives the trip,
// in any split of its bytes, and every malformed or foreign header is refused with its reason.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decodeFrameBody,
  encodeFrame,
  FrameError,
  FrameReader,
  MAX_FRAME_BYTES,
} from '../../../../src/apiserver/front/frame.js';
import type { PeerFacts } from '../../../../src/apiserver/front/peer.js';
import { helperCount } from '../../../../src/apiserver/start/helper-count.js';

const SECRET = 'a'.repeat(64);

const alice: PeerFacts = {
  remoteAddress: '::ffff:127.0.0.1',
  remotePort: 40123,
  certificate: {
    authorized: true,
    authorizationError: '',
    commonNames: ['alice'],
    organizations: ['system:masters', 'dev'],
    sha256: 'ab'.repeat(32),
  },
};

function read(bytes: Buffer, split: number): Buffer | undefined {
  const r = new FrameReader();
  const first = r.push(bytes.subarray(0, split));
  return first ?? r.push(bytes.subarray(split));
}

test('a header read in any split gives back the facts the front sent', () => {
  const bytes = encodeFrame(SECRET, alice);
  for (let split = 0; split <= bytes.length; split++) {
    const body = read(bytes, split);
    assert.ok(body !== undefined, `split at ${split}`);
    assert.deepEqual(decodeFrameBody(body, SECRET), alice);
  }
  const anonymous: PeerFacts = { remoteAddress: '10.0.0.9', remotePort: 1 };
  assert.deepEqual(decodeFrameBody(encodeFrame(SECRET, anonymous).subarray(4), SECRET), anonymous);
});

test('the reader waits for the whole header and refuses what would overrun it', () => {
  const r = new FrameReader();
  assert.equal(r.push(Buffer.of(0, 0)), undefined);
  assert.equal(r.push(Buffer.of(0, 2, 0x7b)), undefined);
  assert.deepEqual(r.push(Buffer.of(0x7d)), Buffer.from('{}'));
  const big = Buffer.alloc(4);
  big.writeUInt32BE(MAX_FRAME_BYTES + 1, 0);
  assert.throws(
    () => new FrameReader().push(big),
    new FrameError(
      `inner connection header: ${MAX_FRAME_BYTES + 1} bytes announced (at most 65536)`,
    ),
  );
  assert.throws(
    () => new FrameReader().push(Buffer.concat([encodeFrame(SECRET, alice), Buffer.from('GET')])),
    /bytes after the header before it was acknowledged/,
  );
});

test('a header with the wrong secret or a malformed field is refused with its reason', () => {
  const body = (o: unknown): Buffer => Buffer.from(JSON.stringify(o));
  const good = { secret: SECRET, address: '1.2.3.4', port: 5, cert: null };
  const cases: [Buffer, string][] = [
    [Buffer.from('{'), 'not JSON'],
    [body([1]), 'not a JSON object'],
    [body({ ...good, secret: 'b'.repeat(64) }), 'wrong secret'],
    [body({ ...good, secret: 'short' }), 'wrong secret'],
    [body({ ...good, port: 70000 }), 'port: not an integer from 0 to 65535'],
    [body({ ...good, port: 1.5 }), 'port: not an integer from 0 to 65535'],
    [body({ ...good, address: 7 }), 'address: not a string of at most 64 characters'],
    [body({ ...good, cert: [] }), 'cert: not an object or null'],
    [body({ ...good, cert: { authorized: 'yes' } }), 'cert.authorized: not a boolean'],
    [
      body({ ...good, cert: { authorized: true, error: '', cn: [], o: [], sha256: 'XY' } }),
      'cert.sha256: not 64 lower-case hex digits',
    ],
    [
      body({ ...good, cert: { authorized: true, error: '', cn: 'alice', o: [], sha256: '' } }),
      'cert.cn: not a list of at most 64',
    ],
    [
      body({ ...good, cert: { authorized: true, error: '', cn: [1], o: [], sha256: '' } }),
      'cert.cn: an entry that is not a string of at most 4096 characters',
    ],
  ];
  for (const [b, why] of cases)
    assert.throws(
      () => decodeFrameBody(b, SECRET),
      new FrameError(`inner connection header: ${why}`),
    );
});

test('--tls-processes: a count as given; -1 one per CPU beyond the first, at most 8', () => {
  assert.equal(helperCount(0, 16), 0);
  assert.equal(helperCount(3, 1), 3);
  assert.equal(helperCount(-1, 1), 0);
  assert.equal(helperCount(-1, 2), 1);
  assert.equal(helperCount(-1, 4), 3);
  assert.equal(helperCount(-1, 64), 8);
});
