// A watch stream's clocks: the request timeout (timeoutSeconds, or a random time in
// [min, 2*min) seconds as the reference) and, with allowWatchBookmarks, the periodic bookmarks.
// At the timeout a bookmarking watcher gets a last bookmark before the stream ends; any other
// stream closes at once.

import { randomInt } from 'node:crypto';
import { afterMs, everyMs, type Clock } from '../../common/util/clock.js';
import type { ListOptions } from '../registry/list.js';
import type { WatchQueue } from './queue.js';

/**
 * How often a quiet bookmarking watch gets a bookmark: once a minute, as the reference's watch
 * cache sends them (its defaultBookmarkFrequency). Each is a write to every such watcher, so a
 * shorter period costs a server with thousands of node watches a share of its CPU.
 */
export const BOOKMARK_INTERVAL_MS = 60_000;

/** What the timers read of the watch request. */
export type WatchTimerRequest = Pick<ListOptions, 'allowWatchBookmarks' | 'timeoutSeconds'>;

export interface WatchTimerOptions {
  readonly clock: Clock;
  readonly minRequestTimeoutSeconds: number;
  readonly bookmarkIntervalMs: number;
  readonly queue: WatchQueue;
  readonly currentRevision: () => number;
}

/** Arms the timers (stopped when the queue closes); returns whether the timeout has passed. */
export function armWatchTimers(o: WatchTimerRequest, t: WatchTimerOptions): () => boolean {
  const { queue } = t;
  const bookmark = (): void =>
    queue.push({ kind: 'bookmark', rv: t.currentRevision(), initialEnd: false });
  let timedOut = false;
  queue.onClose(
    afterMs(t.clock, watchTimeoutMs(o, t.minRequestTimeoutSeconds), () => {
      timedOut = true;
      if (o.allowWatchBookmarks) bookmark();
      else queue.close();
    }),
  );
  if (o.allowWatchBookmarks) {
    queue.onClose(
      everyMs(t.clock, t.bookmarkIntervalMs, () => {
        if (queue.length === 0) bookmark();
      }),
    );
  }
  return () => timedOut;
}

function watchTimeoutMs(o: WatchTimerRequest, minRequestTimeoutSeconds: number): number {
  if (o.timeoutSeconds !== undefined && o.timeoutSeconds > 0) return o.timeoutSeconds * 1000;
  // a negative timeoutSeconds has passed already: the reference's timer fires at once (200, and
  // the stream ends); only 0 or none means the random server timeout
  if (o.timeoutSeconds !== undefined && o.timeoutSeconds < 0) return 0;
  return (minRequestTimeoutSeconds + randomInt(Math.max(1, minRequestTimeoutSeconds))) * 1000;
}
