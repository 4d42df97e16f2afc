// fsGroup ownership, as the reference's SetVolumeOwnership: every entry under the volume gets the
// group (lchown), and, symlinks aside, its mode ORed with rw for the group (r only for volumes
// the reference mounts read-only: configMap, secret, downwardAPI, projected), directories also
// with setgid and x for user and group. With fsGroupChangePolicy OnRootMismatch the walk is
// skipped when the root already has the group, those bits and setgid; the reference's
// emptyDir, configMap, secret, downwardAPI and projected plugins call it without the policy, so
// for them every setup walks (see docs/volumes.md).
import { chmod, lchown, lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

const RW_MASK = 0o660;
const RO_MASK = 0o440;
const EXEC_MASK = 0o110;
const SETGID = 0o2000;

async function changeFilePermission(
  path: string,
  fsGroup: number,
  readOnly: boolean,
): Promise<void> {
  const st = await lstat(path);
  await lchown(path, st.uid, fsGroup).catch(() => undefined);
  if (st.isSymbolicLink()) return;
  let mask = readOnly ? RO_MASK : RW_MASK;
  if (st.isDirectory()) mask |= SETGID | EXEC_MASK;
  await chmod(path, (st.mode & 0o7777) | mask).catch(() => undefined);
}

async function walk(path: string, fn: (p: string) => Promise<void>): Promise<void> {
  await fn(path);
  const st = await lstat(path);
  if (!st.isDirectory()) return;
  for (const name of await readdir(path)) await walk(join(path, name), fn);
}

/** The reference's requiresPermissionChange of OnRootMismatch. */
export async function rootNeedsChange(
  dir: string,
  fsGroup: number,
  readOnly: boolean,
): Promise<boolean> {
  const st = await stat(dir).catch(() => undefined);
  if (st?.gid !== fsGroup || !st.isDirectory()) return true;
  const perms = (readOnly ? RO_MASK : RW_MASK) | EXEC_MASK;
  return (st.mode & perms) !== perms || (st.mode & SETGID) === 0;
}

export async function setVolumeOwnership(
  dir: string,
  fsGroup: number | undefined,
  readOnly: boolean,
  policy?: string,
): Promise<void> {
  if (fsGroup === undefined) return;
  if (policy === 'OnRootMismatch' && !(await rootNeedsChange(dir, fsGroup, readOnly))) return;
  await walk(dir, (p) => changeFilePermission(p, fsGroup, readOnly));
}
