import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestAbort } from '../../../src/apiserver/request-abort.js';

test('a signal read before the abort is aborted by it, with its reason, once', () => {
  const a = new RequestAbort();
  const s = a.signal;
  let fired = 0;
  s.addEventListener('abort', () => fired++);
  assert.equal(s.aborted, false);
  assert.equal(a.signal, s, 'the same signal on every read');
  const reason = new Error('closed');
  a.abort(reason);
  a.abort(new Error('again'));
  assert.equal(s.aborted, true);
  assert.equal(s.reason, reason);
  assert.equal(fired, 1);
});

test('a signal first read after the abort is already aborted, with the first reason', () => {
  const a = new RequestAbort();
  const reason = new Error('stopped');
  a.abort(reason);
  a.abort(new Error('later'));
  assert.equal(a.signal.aborted, true);
  assert.equal(a.signal.reason, reason);
});
