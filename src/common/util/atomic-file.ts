// Atomic file writes: a temp file in the same directory, fsync, rename over the target, then
// fsync the directory, so a crash leaves either the old content or the new, never a half file.
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';

export interface AtomicWriteOptions {
  /** File mode of the result; private material uses 0o600. */
  mode: number;
}

export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions,
): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx', options.mode);
  try {
    await fh.writeFile(data);
    // The umask may have narrowed the mode at creation; set it exactly.
    await fh.chmod(options.mode);
    await fh.sync();
  } catch (err) {
    await fh.close();
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await fh.close();
  try {
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await syncDir(dir);
}

/**
 * fsync a directory so a rename in it survives a power loss; best effort on platforms without it.
 */
export async function syncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic.
  } finally {
    await fh?.close();
  }
}

/** syncDir for callers that cannot wait (a constructor); the same best effort. */
export function syncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // As in syncDir: some filesystems refuse fsync on directories.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const TEMP_NAME = /^\..+\.[0-9a-f]{12}\.tmp$/;

/**
 * Removes temp files a killed writer left in `dir` (only names writeFileAtomic makes). Call it
 * at start-up, before anything else writes there.
 */
export async function removeStaleTempFiles(dir: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const stale = names.filter((n) => TEMP_NAME.test(n));
  await Promise.all(stale.map((n) => unlink(join(dir, n)).catch(() => undefined)));
  return stale;
}
