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

export function followFile(path: string, from: number): LogFollower {
  const stream = new PassThrough();
  let offset = from;
  let reading: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let watcher: FSWatcher | undefined;
  const readNew = async (): Promise<void> => {
    const fh = await open(path, 'r').catch(() => undefined);
    if (fh === undefined) return;
    try {
      const { size } = await fh.stat();
      if (size < offset) offset = 0;
      while (!stopped && offset < size) {
        const { bytesRead, buffer } = await fh.read(Buffer.alloc(Math.min(CHUNK, size - offset)), 0, Math.min(CHUNK, size - offset), offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
        stream.write(buffer.subarray(0, bytesRead));
      }
    } finally {
      await fh.close();
    }
  };
  const kick = (): void => {
    if (stopped || watcher === undefined) return;
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
      if (watcher === undefined && stopped) return;
      watcher?.close();
      watcher = undefined;
      void Promise.resolve(reading)
        .then(() => readNew())
        .catch(() => undefined)
        .finally(() => {
          stopped = true;
          stream.end();
        });
    },
  };
}
