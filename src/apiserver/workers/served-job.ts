// A list page's items served as JSON text on a worker thread: each stored value's plaintext read
// back (storage/stored-object.ts), given its kind and apiVersion and serialised, as the main
// thread's list does for an item not yet in the served cache. The main thread sends a window of
// rows in one message, so the hand-off costs it a copy of each value and of each text, not a
// message per item. A value that does not read back comes back as null: the main thread then
// reads it itself, and reports it as it would.

import { storedObjectOf } from '../storage/stored-object.js';
import { withServedKind } from '../registry/types.js';
import type { JobResult, ServedJob } from './messages.js';
import { WorkerGoneError, type ThreadPool } from './thread-pool.js';

/** The thread's side: the rows' texts. */
export function runServedJob(job: ServedJob): JobResult {
  const texts = job.rows.map((r) => {
    try {
      return JSON.stringify(
        withServedKind(storedObjectOf(r.plain, r.rv), job.objectKind, job.apiVersion),
      );
    } catch {
      return null;
    }
  });
  return { ok: true, texts };
}

/**
 * The main thread's side: each row's text, undefined where no thread made one. The rows are
 * shared out among the running threads, one message each.
 */
export async function servedTextsOnPool(
  pool: ThreadPool,
  objectKind: string,
  apiVersion: string,
  rows: ServedJob['rows'],
): Promise<(string | undefined)[]> {
  const per = Math.ceil(rows.length / Math.max(1, pool.size));
  const parts: ServedJob['rows'][] = [];
  for (let i = 0; i < rows.length; i += per) parts.push(rows.slice(i, i + per));
  const done = await Promise.all(parts.map((p) => onOneThread(pool, objectKind, apiVersion, p)));
  return done.flat();
}

async function onOneThread(
  pool: ThreadPool,
  objectKind: string,
  apiVersion: string,
  rows: ServedJob['rows'],
): Promise<(string | undefined)[]> {
  let r: JobResult | undefined;
  try {
    r = await pool.run({ kind: 'served', objectKind, apiVersion, rows });
  } catch (err) {
    if (!(err instanceof WorkerGoneError)) throw err;
  }
  if (r === undefined || !r.ok || !('texts' in r)) return rows.map(() => undefined);
  return r.texts.map((t) => t ?? undefined);
}
