// How much of its filesystem a volume directory uses, as the reference's MetricsDu: the bytes of
// every distinct inode under the directory (blocks x 512, hard links counted once), the number of
// those inodes (the directory itself included), and the filesystem's capacity, free space and
// inodes (statfs). The walk stays on the directory's filesystem and is bounded in entries.
import { lstat, readdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';

export interface FsUsage {
  readonly capacityBytes: number;
  readonly availableBytes: number;
  readonly usedBytes: number;
  readonly inodes: number;
  readonly inodesFree: number;
  readonly inodesUsed: number;
}

/** A walk stops counting after this many entries (a volume with more reports what it saw). */
export const MAX_WALK_ENTRIES = 1_000_000;

interface Walk {
  readonly dev: number;
  readonly seen: Set<number>;
  bytes: number;
  entries: number;
}

async function walk(path: string, w: Walk): Promise<void> {
  if (w.entries >= MAX_WALK_ENTRIES) return;
  w.entries++;
  const st = await lstat(path).catch(() => undefined);
  if (st?.dev !== w.dev) return;
  if (!w.seen.has(st.ino)) {
    w.seen.add(st.ino);
    w.bytes += st.blocks * 512;
  }
  if (!st.isDirectory()) return;
  const names = await readdir(path).catch((): string[] => []);
  for (const name of names) await walk(join(path, name), w);
}

/** The usage of the directory `path` (rejects when it does not exist). */
export async function measureDirectory(path: string): Promise<FsUsage> {
  const root = await lstat(path);
  const fs = await statfs(path);
  const w: Walk = { dev: root.dev, seen: new Set(), bytes: 0, entries: 0 };
  await walk(path, w);
  return {
    capacityBytes: fs.bsize * fs.blocks,
    availableBytes: fs.bsize * fs.bavail,
    usedBytes: w.bytes,
    inodes: fs.files,
    inodesFree: fs.ffree,
    inodesUsed: w.seen.size,
  };
}
