import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uncaughtReport } from '../../../../src/common/log/uncaught-report.js';

test('an uncaught Error is reported with its stack, on one report naming the program', () => {
  const err = new Error('probe');
  err.stack = 'Error: probe\n    at f (/nowhere/x.cjs:1:1)';
  assert.equal(
    uncaughtReport('nodeagent', err),
    'nodeagent: uncaught exception: Error: probe\n    at f (/nowhere/x.cjs:1:1)\n',
  );
});

test('a thrown value that is not an Error, or an Error without a stack, is reported as it says of itself', () => {
  assert.equal(
    uncaughtReport('plat-apiserver', 'a string'),
    'plat-apiserver: uncaught exception: a string\n',
  );
  const bare = new Error('no stack');
  delete bare.stack;
  assert.equal(
    uncaughtReport('nodeagent', bare),
    'nodeagent: uncaught exception: Error: no stack\n',
  );
});
