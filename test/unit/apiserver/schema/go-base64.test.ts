// A []byte field's base64 as the reference reads it: Go's base64.StdEncoding.Decode, whose error
// is `illegal base64 data at input byte N` (CorruptInputError) with N where Go stops, and which
// skips CR and LF anywhere.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { goBase64Error } from '../../../../src/apiserver/schema/go-base64.js';

const cases: [string, number | undefined][] = [
  ['', undefined],
  ['QUJD', undefined],
  ['QUI=', undefined],
  ['QQ==', undefined],
  ['QUJD\nQUJD\r\n', undefined],
  ['QQ=\n=', undefined],
  ['QUJ', 0],
  ['QUJDQ', 4],
  ['QU!D', 2],
  ['QUJD QUJD', 4],
  ['QQ=A', 2],
  ['Q===', 1],
  ['QQ==QUJD', 4],
  ['QUI=\n', undefined],
  ['QQ=', 3],
  ['é', 0],
];

test('goBase64Error gives Go’s offset of the first illegal byte, or nothing', () => {
  for (const [text, at] of cases)
    assert.equal(
      goBase64Error(text),
      at === undefined ? undefined : `illegal base64 data at input byte ${at}`,
      JSON.stringify(text),
    );
});

/** Padded standard base64 after CR and LF are removed: what Go decodes without an error. */
const PADDED = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

test('goBase64Error accepts every encoding Node makes and only padded standard base64', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), (b) => {
      assert.equal(goBase64Error(Buffer.from(b).toString('base64')), undefined);
    }),
  );
  const char = fc.constantFrom(...'AQZaqz09+/=-_ \n\r!é'.split(''));
  fc.assert(
    fc.property(fc.array(char, { maxLength: 40 }), (chars) => {
      const text = chars.join('');
      const ok = PADDED.test(text.replace(/[\r\n]/g, ''));
      assert.equal(goBase64Error(text) === undefined, ok, JSON.stringify(text));
    }),
    { numRuns: 3000 },
  );
});
