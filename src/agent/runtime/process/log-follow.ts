// Follows a container's log file from an offset: what is appended is pushed to a Readable as
// it arrives (inotify through fs.watch, one read at a time). A file that shrinks (rotated,
// truncated) is followed again from its start. stop() releases the watcher and ends the stream.

import { watch, type FSWatcher } from 'node:fs';
import { open } from 'node:fs/promises';
import { PassThrough } from 'node:stream';

const CHUNK = 64 * 1024;

export interface LogFollower {
  readonly stream: PassThrough;
  stop(): void;
}

interface FollowState {
  /** Where the next read starts. */
  offset: number;
  stopped: boolean;
}

/** Writes what the file holds past the offset to the stream (from its start when it shrank). */
async function readAppended(path: string, state: FollowState, stream: PassThrough): Promise<void> {
  const fh = await open(path, 'r').catch(() => undefined);
  if (fh === undefined) return;
  try {
    const { size } = await fh.stat();
    if (size < state.offset) state.offset = 0;
    while (!state.stopped && state.offset < size) {
      const { bytesRead, buffer } = await fh.read(
        Buffer.alloc(Math.min(CHUNK, size - state.offset)),
        0,
        Math.min(CHUNK, size - state.offset),
        state.offset,
      );
      if (bytesRead === 0) break;
      state.offset += bytesRead;
      stream.write(buffer.subarray(0, bytesRead));
    }
  } finally {
    await fh.close();
  }
}

export function followFile(path: string, from: number): LogFollower {
  const stream = new PassThrough();
  const state: FollowState = { offset: from, stopped: false };
  let reading: Promise<void> | undefined;
  let again = false;
  let watcher: FSWatcher | undefined;
  const readNew = (): Promise<void> => readAppended(path, state, stream);
  const kick = (): void => {
    if (state.stopped || watcher === undefined) return;
    if (reading !== undefined) {
      again = true;
      return;
    }
    reading = readNew().finally(() => {
      reading = undefined;
      if (again) {
        again = false;
        kick();
      }
    });
  };
  try {
    watcher = watch(path, { persistent: false }, kick);
    watcher.on('error', () => undefined);
  } catch {
    // no file yet: nothing to follow (the caller's container has not written)
  }
  kick();
  return {
    stream,
    // What was written up to now is still sent, then the stream ends.
    stop: () => {
      if (watcher === undefined && state.stopped) return;
      watcher?.close();
      watcher = undefined;
      void Promise.resolve(reading)
        .then(() => readNew())
        .catch(() => undefined)
        .finally(() => {
          state.stopped = true;
          stream.end();
        });
    },
  };
}
