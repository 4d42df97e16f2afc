// The mounts the agent makes itself: tmpfs for emptyDir medium Memory and for the secret,
// downwardAPI and projected volumes (the reference backs them with memory so secrets never reach
// a disk, and with `noswap` where the kernel takes it, so they never reach swap either), by
// `mount -t tmpfs` (or --experimental-mounter-path), and their unmounting when the pod is removed.
// Mount points are read from /proc/self/mountinfo; whether a volume's tmpfs is still mounted,
// asked at every sync, is answered from stat and statfs first.
import { execFile } from 'node:child_process';
import { lstat, readFile, stat, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { hostNoswapProbe, noswapSupport } from './tmpfs-noswap.js';

/** One line of /proc/self/mountinfo: the mount point and its file system type. */
export interface MountEntry {
  mountPoint: string;
  fsType: string;
}

/** Octal escapes (\040 for a space) as the kernel writes them in mountinfo. */
function unescapeMountPath(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));
}

export function parseMountInfo(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const sep = fields.indexOf('-');
    const mountPoint = fields[4];
    const fsType = sep >= 0 ? fields[sep + 1] : undefined;
    if (mountPoint !== undefined && fsType !== undefined)
      out.push({ mountPoint: unescapeMountPath(mountPoint), fsType });
  }
  return out;
}

/** statfs(2)'s f_type of a tmpfs. */
const TMPFS_MAGIC = 0x01021994;

/**
 * True when `dir` is the root of a tmpfs: its device is not its parent's, as the reference's
 * IsLikelyNotMountPoint compares them, and statfs names tmpfs. Three system calls, where the
 * mount table of a node with many pods is tens of kilobytes to read and parse at every sync.
 */
async function isTmpfsRoot(dir: string): Promise<boolean> {
  try {
    const [own, parent, fs] = await Promise.all([lstat(dir), stat(dirname(dir)), statfs(dir)]);
    return own.isDirectory() && own.dev !== parent.dev && fs.type === TMPFS_MAGIC;
  } catch {
    return false;
  }
}

export async function mountEntries(): Promise<MountEntry[]> {
  return parseMountInfo(await readFile('/proc/self/mountinfo', 'utf8'));
}

function run(file: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 60_000, encoding: 'utf8' }, (err, _stdout, stderr) => {
      if (err === null) resolve();
      else {
        const detail = stderr.trim() === '' ? err.message : stderr.trim();
        reject(new Error(`${file} ${args.join(' ')} failed: ${detail}`));
      }
    });
  });
}

export interface Mounter {
  /**
   * Mounts a tmpfs at `dir` with `size` bytes (the kernel's default, half the memory, when
   * undefined).
   */
  mountTmpfs(dir: string, sizeBytes: number | undefined): Promise<void>;
  unmount(dir: string): Promise<void>;
  isMountPoint(dir: string): Promise<MountEntry | undefined>;
  /** Every mount point at or under `dir`, deepest first. */
  mountsUnder(dir: string): Promise<string[]>;
  /** Every mount at or under `dir` with its file system type, deepest first. */
  entriesUnder(dir: string): Promise<MountEntry[]>;
}

/** The mounts at or under `dir` (a canonical path, as mountinfo writes them), deepest first. */
export function mountsAtOrUnder(entries: readonly MountEntry[], dir: string): MountEntry[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return entries
    .filter((m) => m.mountPoint === dir || m.mountPoint.startsWith(prefix))
    .sort((a, b) => b.mountPoint.length - a.mountPoint.length);
}

/** `-o` for a tmpfs of `size` bytes, with noswap when the host takes it. */
export function tmpfsOptions(size: number | undefined, noswap: boolean): string[] {
  const options = [...(size !== undefined ? [`size=${size}`] : []), ...(noswap ? ['noswap'] : [])];
  return options.length > 0 ? ['-o', options.join(',')] : [];
}

/** Whether this host's tmpfs takes noswap, asked once (tmpfs-noswap.ts). */
export const hostTmpfsNoswap = noswapSupport(
  hostNoswapProbe(
    (dir, o) => run('mount', ['-t', 'tmpfs', '-o', o, 'tmpfs', dir]),
    (dir) => run('umount', [dir]),
  ),
);

export function systemMounter(mountBinary = 'mount'): Mounter {
  const mount = (dir: string, options: readonly string[]): Promise<void> =>
    run(mountBinary, ['-t', 'tmpfs', ...options, 'tmpfs', dir]);
  const unmount = (dir: string): Promise<void> => run('umount', [dir]);
  return {
    mountTmpfs: async (dir, size) => mount(dir, tmpfsOptions(size, await hostTmpfsNoswap())),
    unmount,
    async isMountPoint(dir) {
      if (await isTmpfsRoot(dir)) return { mountPoint: dir, fsType: 'tmpfs' };
      return (await mountEntries()).findLast((m) => m.mountPoint === dir);
    },
    async mountsUnder(dir) {
      return mountsAtOrUnder(await mountEntries(), dir).map((m) => m.mountPoint);
    },
    async entriesUnder(dir) {
      return mountsAtOrUnder(await mountEntries(), dir);
    },
  };
}
