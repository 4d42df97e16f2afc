// A list page's items served on a worker thread, as JSON text or protobuf message bytes: each
// stored value's plaintext read back (storage/stored-object.ts), given its kind and apiVersion and
// serialised, as the main thread's list does for an item not yet in the served cache. The main
// thread sends a window of rows in one message, so the hand-off costs it a copy of each value and
// of each text, not a message per item. A value that does not read back comes back as null: the main thread then
// reads it itself, and reports it as it would.

import { storedObjectOf } from '../storage/stored-object.js';
import { withServedKind } from '../registry/types.js';
import { encodeMessage } from '../../common/protobuf/codec.js';
import type { JobResult, ServedJob } from './messages.js';
import type { ThreadPool } from './thread-pool.js';
import type { Served } from '../registry/served-cache.js';

/** The thread's side: the rows' texts or messages. */
export function runServedJob(job: ServedJob): JobResult {
  const served = job.rows.map((r) => {
    try {
      const obj = withServedKind(storedObjectOf(r.plain, r.rv), job.objectKind, job.apiVersion);
      return job.format === 'json'
        ? JSON.stringify(obj)
        : encodeMessage(obj, job.apiVersion, job.objectKind);
    } catch {
      return null;
    }
  });
  return { ok: true, served };
}

/**
 * The main thread's side: each row's text or message, undefined where no thread made one. The
 * rows are shared out among the running threads, one message each.
 */
export async function servedOnPool(
  pool: ThreadPool,
  format: ServedJob['format'],
  objectKind: string,
  apiVersion: string,
  rows: ServedJob['rows'],
): Promise<(Served | undefined)[]> {
  const per = Math.ceil(rows.length / Math.max(1, pool.size));
  const jobs: ServedJob[] = [];
  for (let i = 0; i < rows.length; i += per)
    jobs.push({ kind: 'served', format, objectKind, apiVersion, rows: rows.slice(i, i + per) });
  const done = await Promise.all(jobs.map((j) => onOneThread(pool, j)));
  return done.flat();
}

async function onOneThread(pool: ThreadPool, job: ServedJob): Promise<(Served | undefined)[]> {
  const r = await pool.tryRun(job);
  if (r === undefined || !r.ok || !('served' in r)) return job.rows.map(() => undefined);
  return r.served.map((t) => t ?? undefined);
}
