import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { errnoCode } from '../../../../src/common/util/errno.js';

test('errnoCode: the code of a real system error; undefined for errors without a string code and for non-errors', async () => {
  const missing = await stat('/nonexistent-errno-test-path').catch((err: unknown) => err);
  assert.equal(errnoCode(missing), 'ENOENT');
  const numeric = Object.assign(new Error('x'), { code: 7 });
  assert.deepEqual(
    [
      errnoCode(new Error('plain')),
      errnoCode(numeric),
      errnoCode({ code: 'ENOENT' }),
      errnoCode('ENOENT'),
      errnoCode(null),
      errnoCode(undefined),
    ],
    [undefined, undefined, undefined, undefined, undefined, undefined],
  );
});
