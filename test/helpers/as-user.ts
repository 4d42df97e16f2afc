// Permission checks as an unprivileged user, for tests that run as root (root passes every
// check): the test's own process switches its effective uid and gid for the duration of one call,
// so no child process, node binary or module has to be reachable by that user. Only the directory
// the test works in must be; tempDirReachableBy finds one whatever the modes of the checkout, of
// /tmp or of TMPDIR (a CI machine's /tmp may be 0644, a `mktemp -d` is 0700).
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** nobody/nogroup, the unprivileged user of Debian and of the reference's tests. */
export const NOBODY = { uid: 65534, gid: 65534 } as const;

/**
 * Runs `fn` with the effective uid and gid `who` (the process must run as root; glibc applies the
 * switch to every thread, libuv's pool included), and switches back to root whatever `fn` does.
 * Tests in one file run one at a time, so nothing else of the test runs meanwhile.
 */
export async function asUser<T>(
  who: { uid: number; gid: number },
  fn: () => Promise<T>,
): Promise<T> {
  if (process.geteuid?.() !== 0) throw new Error('asUser needs a process running as root');
  process.setegid?.(who.gid);
  process.seteuid?.(who.uid);
  try {
    return await fn();
  } finally {
    process.seteuid?.(0);
    process.setegid?.(0);
  }
}

/**
 * A fresh 0755 directory that `who` can reach (every directory above it searchable by that user),
 * tried under TMPDIR, /var/tmp and /dev/shm in that order; throws naming each place and why it
 * could not be used.
 */
export async function tempDirReachableBy(
  who: { uid: number; gid: number },
  prefix: string,
): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const tried: string[] = [];
  for (const base of [...new Set([tmpdir(), '/var/tmp', '/dev/shm'])]) {
    let dir: string;
    try {
      dir = await mkdtemp(join(base, prefix));
    } catch (err) {
      tried.push(`${base}: ${String(err)}`);
      continue;
    }
    const cleanup = (): Promise<void> => rm(dir, { recursive: true, force: true });
    try {
      await chmod(dir, 0o755); // mkdtemp makes it 0700
      // "<dir>/." resolves only when dir and every directory above it are searchable
      await asUser(who, () => stat(join(dir, '.')));
      return { path: dir, cleanup };
    } catch (err) {
      tried.push(`${base}: ${String(err)}`);
      await cleanup();
    }
  }
  throw new Error(`no temp dir is reachable by uid ${who.uid}: ${tried.join('; ')}`);
}
