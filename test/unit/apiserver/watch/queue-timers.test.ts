// The parts one watch stream is made of: the queue it serves from (closing drops what is queued,
// runs the clean-ups once, and ends a waiting next()), and its timers on the Clock (the request
// timeout closes a plain stream at once and gives a bookmarking one a last bookmark; periodic
// bookmarks only when nothing is queued; every timer stopped when the queue closes).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WatchQueue, type WatchItem } from '../../../../src/apiserver/watch/queue.js';
import {
  armWatchTimers,
  BOOKMARK_INTERVAL_MS,
  type WatchTimerRequest,
} from '../../../../src/apiserver/watch/timers.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

const bookmark = (rv: number): WatchItem => ({ kind: 'bookmark', rv, initialEnd: false });

test('the queue hands out items in order and waits for the next one', async () => {
  const q = new WatchQueue({ initial: [bookmark(1)] });
  assert.deepEqual(await q.next(), bookmark(1));
  const waiting = q.next();
  q.push(bookmark(2));
  assert.deepEqual(await waiting, bookmark(2));
});

test('closing the queue ends a waiting next(), drops queued items and runs each clean-up once, in order', async () => {
  const ran: string[] = [];
  const q = new WatchQueue({ initial: [] });
  q.onClose(() => ran.push('unsubscribe'));
  q.onClose(() => ran.push('timers'));
  const waiting = q.next();
  q.close();
  assert.equal(await waiting, undefined);
  q.push(bookmark(3));
  q.close();
  assert.equal(q.closed, true);
  assert.equal(await q.next(), undefined, 'an item pushed after close is never served');
  assert.deepEqual(ran, ['unsubscribe', 'timers']);
});

function watchOptions(o: Partial<WatchTimerRequest>): WatchTimerRequest {
  return { allowWatchBookmarks: false, timeoutSeconds: undefined, ...o };
}

test('timeoutSeconds closes a stream without bookmarks when it passes, and the timers stop with the queue', () => {
  const clock = new ManualClock();
  const q = new WatchQueue({ initial: [] });
  const timedOut = armWatchTimers(watchOptions({ timeoutSeconds: 2 }), {
    clock,
    minRequestTimeoutSeconds: 1800,
    bookmarkIntervalMs: 5000,
    queue: q,
    currentRevision: () => 7,
  });
  clock.advance(1999);
  assert.equal(q.closed, false);
  assert.equal(timedOut(), false);
  clock.advance(1);
  assert.equal(q.closed, true);
  assert.equal(timedOut(), true);
  assert.equal(clock.pendingTimers, 0);
});

test('with allowWatchBookmarks: a bookmark every interval while nothing is queued, and one more at the timeout', async () => {
  const clock = new ManualClock();
  let rv = 5;
  const q = new WatchQueue({ initial: [] });
  const timedOut = armWatchTimers(watchOptions({ allowWatchBookmarks: true, timeoutSeconds: 12 }), {
    clock,
    minRequestTimeoutSeconds: 1800,
    bookmarkIntervalMs: 5000,
    queue: q,
    currentRevision: () => rv,
  });
  clock.advance(5000);
  assert.equal(q.length, 1);
  clock.advance(5000);
  assert.equal(q.length, 1, 'no periodic bookmark while one is still queued');
  assert.deepEqual(await q.next(), bookmark(5));
  rv = 9;
  clock.advance(2000);
  assert.equal(timedOut(), true);
  assert.equal(q.closed, false, 'a bookmarking stream ends after its last bookmark is served');
  assert.deepEqual(await q.next(), bookmark(9));
  q.close();
  assert.equal(clock.pendingTimers, 0);
});

test("the server's periodic bookmark comes once a minute, as the reference's (its defaultBookmarkFrequency)", () => {
  const clock = new ManualClock();
  const q = new WatchQueue({ initial: [] });
  armWatchTimers(watchOptions({ allowWatchBookmarks: true }), {
    clock,
    minRequestTimeoutSeconds: 1800,
    bookmarkIntervalMs: BOOKMARK_INTERVAL_MS,
    queue: q,
    currentRevision: () => 3,
  });
  clock.advance(59_999);
  assert.equal(q.length, 0);
  clock.advance(1);
  assert.equal(q.length, 1);
  q.close();
});

test('without timeoutSeconds the stream ends within [min, 2*min) seconds', () => {
  const clock = new ManualClock();
  const q = new WatchQueue({ initial: [] });
  armWatchTimers(watchOptions({}), {
    clock,
    minRequestTimeoutSeconds: 60,
    bookmarkIntervalMs: 5000,
    queue: q,
    currentRevision: () => 1,
  });
  clock.advance(59_999);
  assert.equal(q.closed, false);
  clock.advance(60_000);
  assert.equal(q.closed, true);
});
