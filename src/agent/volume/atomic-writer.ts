// The reference's atomic writer (pkg/volume/util AtomicWriter), the layout configMap, secret,
// downwardAPI and projected volumes are written in, so that a reader never sees a half-written
// set: the files go into a new timestamped directory `..<UTC yyyy_mm_dd_hh_mm_ss>.<random>`
// (mode 0755), a symlink `..data_tmp` to it is renamed over `..data` (rename is atomic), each
// user-visible top-level name is a symlink `name -> ..data/name`, then names no longer in the
// payload are removed and the previous timestamped directory with them. Nothing is written
// when every file already has its content.
import { randomInt } from 'node:crypto';
import {
  chmod,
  mkdir,
  readFile,
  readdir,
  readlink,
  rename,
  rm,
  symlink,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import type { Clock } from '../../common/util/clock.js';
import { errnoCode } from '../../common/util/errno.js';

export const DATA_DIR = '..data';
const NEW_DATA_DIR = '..data_tmp';
const MAX_PATH_LENGTH = 4096;
const MAX_FILE_NAME_LENGTH = 255;

export interface FileProjection {
  data: Buffer;
  /** The file's permission bits (0644 when the pod says nothing). */
  mode: number;
}

export type Payload = Map<string, FileProjection>;

/** The reference's validatePath: relative, no `..` element, not starting with `..`, bounded. */
export function payloadPathProblem(p: string): string | undefined {
  if (p === '') return `invalid path: must not be empty: "${p}"`;
  if (p.startsWith('/')) return `invalid path: must be relative path: ${p}`;
  if (p.length > MAX_PATH_LENGTH)
    return `invalid path: must be less than or equal to ${MAX_PATH_LENGTH} characters`;
  const items = p.split('/');
  for (const item of items) {
    if (item === '..') return `invalid path: must not contain '..': ${p}`;
    if (item.length > MAX_FILE_NAME_LENGTH)
      return (
        `invalid path: filenames must be less than or equal to ${MAX_FILE_NAME_LENGTH} ` +
        `characters`
      );
  }
  const first = items[0] ?? '';
  if (first.startsWith('..') && first.length > 2)
    return `invalid path: must not start with '..': ${p}`;
  return undefined;
}

function cleanPayload(payload: Payload): Payload {
  const out: Payload = new Map();
  for (const [p, f] of payload) {
    const problem = payloadPathProblem(p);
    if (problem !== undefined) throw new Error(problem);
    out.set(posix.normalize(p).replace(/\/$/, ''), f);
  }
  return out;
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/** `..2006_01_02_15_04_05.` of the clock's UTC time, as the reference formats it. */
export function timestampPrefix(clock: Clock): string {
  const d = clock.now();
  return (
    `..${d.getUTCFullYear()}_${two(d.getUTCMonth() + 1)}_${two(d.getUTCDate())}_` +
    `${two(d.getUTCHours())}_${two(d.getUTCMinutes())}_${two(d.getUTCSeconds())}.`
  );
}

async function readlinkOrUndefined(p: string): Promise<string | undefined> {
  try {
    return await readlink(p);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw err;
  }
}

/** Every path under dir, relative to it (directories included), as filepath.Walk finds them. */
async function walkRelative(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === '' ? e.name : `${prefix}/${e.name}`;
    out.push(rel);
    if (e.isDirectory()) out.push(...(await walkRelative(dir, rel)));
  }
  return out;
}

/** The paths of the old data directory that the payload no longer has (its parents kept). */
async function pathsToRemove(payload: Payload, oldTsPath: string): Promise<Set<string>> {
  const keep = new Set<string>();
  for (const file of payload.keys())
    for (let p = file; p !== '.' && p !== ''; p = posix.dirname(p)) keep.add(p);
  const old = await walkRelative(oldTsPath).catch(() => []);
  return new Set(old.filter((p) => !keep.has(p)));
}

async function shouldWritePayload(payload: Payload, oldTsPath: string): Promise<boolean> {
  for (const [p, f] of payload) {
    const current = await readFile(join(oldTsPath, p)).catch(() => undefined);
    if (!current?.equals(f.data)) return true;
  }
  return false;
}

async function newTimestampDir(targetDir: string, clock: Clock): Promise<string> {
  const prefix = timestampPrefix(clock);
  for (;;) {
    const dir = join(targetDir, `${prefix}${randomInt(0, 2 ** 32 - 1)}`);
    try {
      await mkdir(dir, { mode: 0o755 });
      await chmod(dir, 0o755);
      return dir;
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST') throw err;
    }
  }
}

async function writePayloadToDir(payload: Payload, dir: string): Promise<void> {
  for (const [p, f] of payload) {
    const full = join(dir, p);
    await mkdir(dirname(full), { recursive: true, mode: 0o777 });
    await writeFile(full, f.data, { mode: f.mode });
    await chmod(full, f.mode);
  }
}

/** Publishes a written timestamped directory: ..data_tmp -> it, renamed over ..data. */
async function swapDataDir(targetDir: string, tsDir: string): Promise<void> {
  const tmp = join(targetDir, NEW_DATA_DIR);
  await rm(tmp, { force: true });
  try {
    await symlink(posix.basename(tsDir), tmp);
    await rename(tmp, join(targetDir, DATA_DIR));
  } catch (err) {
    await rm(tmp, { force: true });
    await rm(tsDir, { recursive: true, force: true });
    throw err;
  }
}

async function createUserVisibleFiles(targetDir: string, payload: Payload): Promise<void> {
  const names = new Set([...payload.keys()].map((p) => p.split('/')[0] ?? p));
  for (const name of names) {
    const visible = join(targetDir, name);
    if ((await readlinkOrUndefined(visible)) === undefined)
      await symlink(`${DATA_DIR}/${name}`, visible);
  }
}

export interface AtomicWriteOptions {
  clock: Clock;
  /** Ownership and modes (fsGroup), applied to the volume once the new directory is written. */
  setPerms?: () => Promise<void>;
}

/** Writes `payload` into `targetDir` as the reference's AtomicWriter.Write does. */
export async function writeAtomic(
  targetDir: string,
  payload: Payload,
  o: AtomicWriteOptions,
): Promise<void> {
  const clean = cleanPayload(payload);
  const oldTsDir = await readlinkOrUndefined(join(targetDir, DATA_DIR));
  let remove = new Set<string>();
  let write = true;
  let previous = oldTsDir;
  if (oldTsDir !== undefined) {
    const oldTsPath = join(targetDir, oldTsDir);
    remove = await pathsToRemove(clean, oldTsPath);
    if (!(await shouldWritePayload(clean, oldTsPath)) && remove.size === 0) {
      write = false;
      previous = undefined;
    }
  }
  if (write) {
    const tsDir = await newTimestampDir(targetDir, o.clock);
    await writePayloadToDir(clean, tsDir);
    await o.setPerms?.();
    await swapDataDir(targetDir, tsDir);
  }
  await createUserVisibleFiles(targetDir, clean);
  // only top-level names are links of their own; deeper paths went with the old directory
  for (const p of remove)
    if (!p.includes('/')) await unlink(join(targetDir, p)).catch(() => undefined);
  if (previous !== undefined) await rm(join(targetDir, previous), { recursive: true, force: true });
}

/** True when `name` is one of the writer's own entries (`..data`, a timestamped directory). */
export function isWriterEntry(name: string): boolean {
  return name.startsWith('..');
}
