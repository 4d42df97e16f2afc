import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  SelectorError,
  fnv1a64,
  parseShardSelector,
} from '../../../../src/apiserver/selectors/index.js';

test('fnv1a64 known vectors', () => {
  assert.equal(fnv1a64(''), 0xcbf29ce484222325n);
  assert.equal(fnv1a64('a'), 0xaf63dc4c8601ec8cn);
  assert.equal(fnv1a64('foobar'), 0x85944171f73967e8n);
  // UTF-8 bytes, not UTF-16 units
  assert.notEqual(fnv1a64('é'), fnv1a64('\u00e9'.normalize('NFD')));
});

test('double-quoted bounds and no spaces are accepted', () => {
  assert.equal(
    parseShardSelector('shardRange(object.metadata.uid,"0x0000000000000000","0x10000000000000000")')
      .ranges.length,
    1,
  );
});

test('parse one and several ranges, echo the selector', () => {
  const text =
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')";
  const s = parseShardSelector(text);
  assert.equal(s.selector, text);
  assert.equal(s.field, 'object.metadata.uid');
  assert.deepEqual(s.ranges, [
    { start: 0n, end: 0x8000000000000000n },
    { start: 0xc000000000000000n, end: 0x10000000000000000n },
  ]);
});

test('matches by the hash of uid or namespace', () => {
  const full = parseShardSelector(
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')",
  );
  assert.equal(full.matches({ metadata: { uid: 'x' } }), true);
  const h = fnv1a64('my-uid');
  const hex = (n: bigint): string => `0x${n.toString(16).padStart(16, '0')}`;
  const exact = parseShardSelector(
    `shardRange(object.metadata.uid, '${hex(h)}', '${hex(h + 1n)}')`,
  );
  assert.equal(exact.matches({ metadata: { uid: 'my-uid' } }), true);
  assert.equal(exact.matches({ metadata: { uid: 'other' } }), false);
  const ns = parseShardSelector(
    `shardRange(object.metadata.namespace, '${hex(fnv1a64(''))}', '${hex(fnv1a64('') + 1n)}')`,
  );
  assert.equal(
    ns.matches({ metadata: { name: 'cluster-scoped' } }),
    true,
    'cluster-scoped objects hash ""',
  );
  assert.equal(ns.matches({ metadata: { namespace: 'default' } }), false);
});

test('property: two halves partition every object', () => {
  const lo = parseShardSelector(
    "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
  );
  const hi = parseShardSelector(
    "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')",
  );
  fc.assert(
    fc.property(
      fc.string(),
      (uid) => lo.matches({ metadata: { uid } }) !== hi.matches({ metadata: { uid } }),
    ),
  );
});

const U = 'object.metadata.uid';
const errors: [string, string][] = [
  ['', 'empty shard selector is not allowed'], // exactly the reference's text (no suffix)
  ['   ', 'empty shard selector is not allowed'],
  [
    `hash(${U}, '0x0000000000000000', '0x8000000000000000')`,
    'unsupported function "hash"; only shardRange() and || are allowed',
  ],
  [`shardRange(${U}, '0x0000000000000000')`, 'shardRange() requires exactly 3 arguments, got 2'],
  ['shardRange()', 'shardRange() requires exactly 3 arguments, got 0'],
  [
    "shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')",
    'unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace',
  ],
  [
    "shardRange('x', '0x0000000000000000', '0x8000000000000000')",
    'shardRange() first argument: expected field path (e.g. object.metadata.uid)',
  ],
  [
    `shardRange(${U}, '0000000000000000', '0x8000000000000000')`,
    'hexStart must have \'0x\' prefix, got "0000000000000000"',
  ],
  [
    `shardRange(${U}, '0x0000000000000000', '8000000000000000')`,
    'hexEnd must have \'0x\' prefix, got "8000000000000000"',
  ],
  [
    `shardRange(${U}, 0x0000000000000000, '0x8000000000000000')`,
    "hexStart must be a string literal (e.g. '0xff')",
  ],
  [
    `shardRange(${U}, '0x00', '0x8000000000000000')`,
    'hexStart must be a 0x-prefixed 16-digit hex value, got "0x00" (did you mean "0x0000000000000000"?)',
  ],
  [`shardRange(${U}, '0x', '0x8000000000000000')`, "hexStart: hex value is required after '0x'"],
  [
    `shardRange(${U}, '0x000000000000000g', '0x8000000000000000')`,
    'hexStart: invalid hex character "g" in "0x000000000000000g"',
  ],
  [
    `shardRange(${U}, '0x000000000000000A', '0x8000000000000000')`,
    'hexStart: invalid hex character "A"',
  ],
  [
    `shardRange(${U}, '0x0000000000000000', '0x100000000000000000')`,
    'hexEnd: hex value too long (18 chars, max 17): "100000000000000000"',
  ],
  [
    `shardRange(${U}, '0x0000000000000000', '0x20000000000000000')`,
    'hexEnd: 17-digit hex value must be \'0x10000000000000000\' (2^64), got "0x20000000000000000"',
  ],
  [
    `shardRange(${U}, '0x10000000000000000', '0x10000000000000000')`,
    'shard range start 0x10000000000000000 must be less than end 0x10000000000000000',
  ],
  [
    `shardRange(${U}, '0x8000000000000000', '0x8000000000000000')`,
    'shard range start 0x8000000000000000 must be less than end 0x8000000000000000',
  ],
  [
    `shardRange(${U}, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')`,
    'all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"',
  ],
  ['garbage', 'unexpected expression "garbage"; expected shardRange() call or || operator'],
  [`shardRange(${U}, '0x0000000000000000', '0x8000000000000000') ||`, 'CEL parse error'],
  [`shardRange(${U}, '0x0000000000000000, '0x8000000000000000')`, 'CEL parse error'],
];
for (const [sel, msg] of errors) {
  test(`shard selector error ${JSON.stringify(sel)}`, () => {
    assert.throws(
      () => parseShardSelector(sel),
      (e: unknown) => {
        assert.ok(e instanceof SelectorError);
        assert.ok(e.message.startsWith(msg), e.message);
        return true;
      },
    );
  });
}

test('property: parse never throws anything but SelectorError', () => {
  const unit = fc.constantFrom(
    'shardRange',
    '(',
    ')',
    ',',
    "'",
    '0x',
    '0',
    'f',
    '1',
    '||',
    ' ',
    'object.metadata.uid',
  );
  fc.assert(
    fc.property(fc.string({ unit }), (s) => {
      try {
        parseShardSelector(s);
      } catch (e) {
        return e instanceof SelectorError;
      }
      return true;
    }),
    { numRuns: 2000 },
  );
});
