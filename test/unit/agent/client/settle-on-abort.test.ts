// A request settles when its signal aborts, even while it has no connection (undici takes such an
// abort only once the connection is made or fails); an answer that comes later is discarded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { settleOnAbort } from '../../../../src/agent/client/settle-on-abort.js';

function answer(): Dispatcher.ResponseData {
  return {
    statusCode: 200,
    headers: {},
    body: Readable.from(['ok']),
  } as unknown as Dispatcher.ResponseData;
}

test('a pending request rejects with the signal reason as soon as the signal aborts', async () => {
  const ac = new AbortController();
  const settled = settleOnAbort(new Promise<Dispatcher.ResponseData>(() => undefined), ac.signal);
  const reason = new Error('stopping');
  ac.abort(reason);
  await assert.rejects(settled, (err: unknown) => err === reason);
});

test('an answer that comes after the abort has its body destroyed', async () => {
  const ac = new AbortController();
  let deliver = (_r: Dispatcher.ResponseData): void => undefined;
  const late = answer();
  const settled = settleOnAbort(
    new Promise<Dispatcher.ResponseData>((r) => (deliver = r)),
    ac.signal,
  );
  ac.abort(new Error('stopping'));
  await assert.rejects(settled);
  deliver(late);
  await new Promise((r) => setImmediate(r));
  assert.equal((late.body as unknown as Readable).destroyed, true);
});

test('an already aborted signal rejects at once; no signal or no abort: the request as it is', async () => {
  const ac = new AbortController();
  ac.abort(new Error('gone'));
  await assert.rejects(settleOnAbort(Promise.resolve(answer()), ac.signal), /gone/);
  const res = answer();
  assert.equal(await settleOnAbort(Promise.resolve(res), undefined), res);
  assert.equal(await settleOnAbort(Promise.resolve(res), new AbortController().signal), res);
  const failure = new Error('connection refused');
  await assert.rejects(
    settleOnAbort(Promise.reject(failure), new AbortController().signal),
    (err: unknown) => err === failure,
  );
});
