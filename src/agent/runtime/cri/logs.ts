// containerLogs on a CRI runtime: the container's log file (ContainerStatus.log_path, the runtime
// writes it in the CRI log format) and the files the agent's log rotation made of it
// (`<log>.<timestamp>`, older ones gzip'd), read oldest first as one log and parsed; the tail and
// since as the reference's ReadLogs apply them (tail first, then since). At most
// MAX_LOG_READ_BYTES are read per request, newest first.
import { readFile, unlink } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { linesSince } from '../log-lines.js';
import { COMPRESS_SUFFIX, rotatedFiles } from '../rotated-logs.js';
import type { TimedLogLine } from '../types.js';
import type { CriClient } from './client.js';
import { MAX_LOG_READ_BYTES, parseCriLog, readCriLogFile } from './cri-log.js';
import { RuntimeError } from '../../../common/util/errors.js';

const gunzipAsync = promisify(gunzip);

const missing = (err: unknown): boolean =>
  err instanceof Error && 'code' in err && err.code === 'ENOENT';

/**
 * A rotated file's text (gunzip'd), at most `budget` bytes of it (its end, from a whole record).
 */
async function readRotated(path: string, budget: number): Promise<string> {
  if (!path.endsWith(COMPRESS_SUFFIX)) return readCriLogFile(path, budget);
  let bytes: Buffer;
  try {
    bytes = await gunzipAsync(await readFile(path), { maxOutputLength: MAX_LOG_READ_BYTES });
  } catch (err) {
    if (err instanceof RangeError)
      throw new RuntimeError(`${path} unpacks to over ${MAX_LOG_READ_BYTES} bytes`);
    throw err;
  }
  if (bytes.length <= budget) return bytes.toString('utf8');
  const text = bytes.subarray(bytes.length - budget).toString('utf8');
  return text.slice(text.indexOf('\n') + 1);
}

/** How often a read that met a rotation in progress is taken again before it is given as is. */
const ROTATION_READ_ATTEMPTS = 5;

/** One read of the log and its rotated files; `torn` when a rotation happened during it. */
async function readOnce(log: string): Promise<{ text: string; torn: boolean }> {
  const listed = (await rotatedFiles(log)).inUse;
  const current = await readCriLogFile(log).catch((err: unknown) => {
    if (missing(err)) return '';
    throw err;
  });
  const parts = [current];
  let left = MAX_LOG_READ_BYTES - Buffer.byteLength(current);
  let torn = false;
  for (const f of [...listed].reverse()) {
    if (left <= 0) break;
    const text = await readRotated(f, left).catch((err: unknown) => {
      // compressed or removed by a rotation since it was listed
      if (!missing(err)) throw err;
      torn = true;
      return '';
    });
    parts.unshift(text);
    left -= Buffer.byteLength(text);
  }
  const after = (await rotatedFiles(log)).inUse;
  torn ||= after.length !== listed.length || after.some((f, i) => f !== listed[i]);
  return { text: parts.join(''), torn };
}

/**
 * The log and its rotated files as one text, oldest first, at most MAX_LOG_READ_BYTES. A read
 * during which the files were rotated (a file renamed, compressed or removed between the listing
 * and its read) would miss or repeat lines, so it is taken again.
 */
export async function readLogAcrossRotation(log: string): Promise<string> {
  let read = await readOnce(log);
  for (let i = 1; i < ROTATION_READ_ATTEMPTS && read.torn; i++) read = await readOnce(log);
  return read.text;
}

/** Removes a container's log and every file rotated from it. */
export async function removeLogFiles(log: string): Promise<void> {
  const { inUse, unused } = await rotatedFiles(log);
  for (const f of [log, ...inUse, ...unused]) await unlink(f).catch(() => undefined);
}

export class CriLogs {
  private readonly paths = new Map<string, string>();

  constructor(private readonly client: CriClient) {}

  forget(id: string): void {
    this.paths.delete(id);
  }

  async pathOf(id: string): Promise<string> {
    const known = this.paths.get(id);
    if (known !== undefined) return known;
    const r = await this.client.call('RuntimeService/ContainerStatus', { container_id: id });
    const path = r.status?.log_path ?? '';
    if (!path.startsWith('/'))
      throw new RuntimeError(`the runtime keeps no log file for container ${id.slice(0, 12)}`);
    this.paths.set(id, path);
    return path;
  }

  async lines(id: string, tailLines?: number, sinceMs?: number): Promise<TimedLogLine[]> {
    const text = await readLogAcrossRotation(await this.pathOf(id));
    let lines: TimedLogLine[] = parseCriLog(text).map((l) => ({ time: l.time, text: l.text }));
    if (tailLines !== undefined) lines = tailLines <= 0 ? [] : lines.slice(-tailLines);
    return linesSince(lines, sinceMs);
  }
}
