import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { closeUnread } from '../../../../src/common/util/close-unread.js';

/** A body that, like undici's, makes an "aborted" error when destroyed before its end. */
function openBody(made: Error[]): Readable {
  return new Readable({
    read() {
      this.push('{"type":"ADDED"}\n');
    },
    destroy(err, callback) {
      const aborted = err ?? new Error('aborted');
      made.push(aborted);
      callback(aborted);
    },
  });
}

test('closeUnread: the errors a body makes when closed on purpose carry no stack frames, and are not thrown', async () => {
  const made: Error[] = [];
  const body = openBody(made);
  for await (const chunk of body.iterator({ destroyOnReturn: false })) {
    assert.ok(chunk);
    break;
  }
  const limit = Error.stackTraceLimit;
  closeUnread(body);
  assert.equal(Error.stackTraceLimit, limit);
  await new Promise((resolve) => body.on('close', resolve));
  assert.equal(made.length, 1);
  assert.equal(made[0]?.stack, 'Error: aborted');
  assert.match(new Error('later').stack ?? '', /\n {4}at /);
});

test('closeUnread leaves a stream that already failed, with its stack, as it is', () => {
  const made: Error[] = [];
  const body = openBody(made);
  body.on('error', () => undefined);
  body.destroy(new Error('broken'));
  closeUnread(body);
  assert.equal(made.length, 1);
  assert.match(made[0]?.stack ?? '', /^Error: broken\n {4}at /);
});
