import { test } from 'node:test';
import assert from 'node:assert/strict';
import { textOf } from '../../../../src/common/util/text-of.js';

test('textOf: strings as they are, everything else as JSON, never [object Object]', () => {
  assert.deepEqual(
    [
      textOf('v1'),
      textOf(1),
      textOf(true),
      textOf(null),
      textOf({ a: [1] }),
      textOf([1, 'x']),
      textOf(undefined),
      textOf(10n),
    ],
    ['v1', '1', 'true', 'null', '{"a":[1]}', '[1,"x"]', 'undefined', '10'],
  );
  const cyclic: Record<string, unknown> = {};
  cyclic['self'] = cyclic;
  assert.equal(textOf(cyclic), '[object Object]', 'what JSON cannot write falls back to the tag');
});
