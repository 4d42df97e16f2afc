// Asserts that `fn` throws a FlagError (the error of a bad flag or flag-shaped value), with
// `message` exactly (a string) or matching it (a RegExp) when given.
import assert from 'node:assert/strict';
import { FlagError } from '../../src/common/util/errors.js';

export function throwsFlagError(fn: () => unknown, message?: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof FlagError, `expected FlagError, got ${String(e)}`);
    if (typeof message === 'string') assert.equal(e.message, message);
    else if (message) assert.match(e.message, message);
    return true;
  });
}
