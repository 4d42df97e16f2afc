// The files of a container log rotated the reference's way (its container log manager, which a
// CRI runtime's logs get): `<log>.<YYYYMMDD-hhmmss>` for the newest rotated file, gzip'd
// `<log>.<YYYYMMDD-hhmmss>.gz` for older ones, `.tmp` while a file is being compressed. What is
// in use, oldest first, for the rotation and for the readers that read across a rotation.
import { readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export const COMPRESS_SUFFIX = '.gz';
export const TMP_SUFFIX = '.tmp';

/** The reference's timestamp of a rotated file (Go's 20060102-150405), in local time. */
export function rotationStamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}` +
    `${p(d.getMinutes())}${p(d.getSeconds())}`
  );
}

/** Whether a rotated file is in use: not a temporary file, not one already compressed. */
function inUse(name: string, names: ReadonlySet<string>): boolean {
  if (name.endsWith(TMP_SUFFIX)) return false;
  if (name.endsWith(COMPRESS_SUFFIX)) return true;
  return !names.has(name + COMPRESS_SUFFIX);
}

/** Every `<log>.*` beside the log, split into those in use (sorted, oldest first) and leftovers. */
export async function rotatedFiles(log: string): Promise<{ inUse: string[]; unused: string[] }> {
  const dir = dirname(log);
  const prefix = `${basename(log)}.`;
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) =>
    n.startsWith(prefix),
  );
  const all = new Set(names);
  const used = names.filter((n) => inUse(n, all)).sort();
  const unused = names.filter((n) => !inUse(n, all));
  return { inUse: used.map((n) => join(dir, n)), unused: unused.map((n) => join(dir, n)) };
}
