// A live change's protobuf watch frame made on a worker thread. A protobuf message is encoded by
// a walk of the object in JavaScript, several times the cost of JSON.stringify of the same object
// (bench/worker-handoff: a Node's 22 us against 6 us), so the main thread sends the object as JSON
// text and gets the frame's bytes back; every protobuf watcher of the change shares them.

import { encodeWatchFrame } from '../../common/protobuf/codec.js';
import type { EventType } from '../watch/events.js';
import type { FrameJob, JobResult } from './messages.js';
import type { ThreadPool } from './thread-pool.js';

/** The thread's side: the frame's bytes. */
export function runFrameJob(job: FrameJob): JobResult {
  try {
    const object = JSON.parse(job.object) as Record<string, unknown>;
    const bytes = encodeWatchFrame(job.type, object, job.apiVersion, job.objectKind);
    return { ok: true, bytes };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The main thread's side: the frame from a thread, or undefined when no thread made it (none
 * runs, it died, or the object did not encode there): the caller then encodes it itself.
 */
export async function frameOnPool(
  pool: ThreadPool,
  type: EventType,
  object: Record<string, unknown>,
  objectKind: string,
  apiVersion: string,
): Promise<Buffer | undefined> {
  const job: FrameJob = {
    kind: 'frame',
    type,
    object: JSON.stringify(object),
    objectKind,
    apiVersion,
  };
  const r = await pool.tryRun(job);
  return r?.ok === true && 'bytes' in r
    ? Buffer.from(r.bytes.buffer, r.bytes.byteOffset, r.bytes.byteLength)
    : undefined;
}
