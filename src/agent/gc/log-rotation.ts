// Container log rotation (containerLogMaxSize, containerLogMaxFiles, containerLogMaxWorkers,
// containerLogMonitorInterval), the one place logs are rotated. Two ways, by what the runtime can:
// - a runtime that reopens a container's log (CRI ReopenContainerLog): the reference's container
//   log manager. Only running containers; a log at or over the size is renamed
//   `<log>.<YYYYMMDD-hhmmss>` and the runtime told to reopen it (renamed back when it cannot);
//   before that leftovers are removed, rotated files beyond containerLogMaxFiles - 2 removed
//   oldest first, and the previously rotated file gzip'd (`.gz`, through a `.tmp`).
// - a runtime whose log the agent writes itself (process://): over the size, copied to `<log>.1`
//   (older copies shift up to containerLogMaxFiles - 1) and truncated in place.
// Docker rotates its own json-file logs (the runtime is given the same limits).
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, rename, stat, truncate, unlink } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import { checkWritableUnder } from '../../common/util/safe-path.js';
import type { ContainerRuntime } from '../runtime/types.js';
import {
  COMPRESS_SUFFIX,
  rotatedFiles,
  rotationStamp,
  TMP_SUFFIX,
} from '../runtime/rotated-logs.js';

export interface LogRotationOptions {
  runtime: ContainerRuntime;
  maxBytes: number;
  /** containerLogMaxFiles (at least 2). */
  maxFiles: number;
  /** containerLogMaxWorkers: logs rotated at once. */
  workers: number;
  /** Log files are rotated only inside these directories (the root directory, podLogsDir). */
  roots: readonly string[];
  clock: Clock;
  logger: Logger;
}

export class LogRotation {
  constructor(private readonly o: LogRotationOptions) {}

  /** Rotates the logs over the size limit, containerLogMaxWorkers at a time; returns how many. */
  async run(): Promise<number> {
    const { runtime } = this.o;
    const logPath = runtime.logPath?.bind(runtime);
    if (logPath === undefined) return 0;
    const reopening = runtime.reopenContainerLog !== undefined;
    const targets = new Map<string, string>();
    for (const c of await runtime.listContainers()) {
      if (c.kind === 'sandbox' || (reopening && c.state !== 'running')) continue;
      const p = logPath(c.id);
      if (p !== undefined && p !== '' && !targets.has(p)) targets.set(p, c.id);
    }
    const queue = [...targets];
    let rotated = 0;
    const worker = async (): Promise<void> => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        const [path, id] = next;
        const done = await this.rotateOne(path, id, reopening).catch((err: unknown) => {
          this.o.logger.warn(
            { file: path, err: userMessage(err) },
            'failed to rotate log for container',
          );
          return false;
        });
        if (done) rotated++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.o.workers, queue.length) }, worker));
    return rotated;
  }

  private async rotateOne(path: string, id: string, reopening: boolean): Promise<boolean> {
    let st = await stat(path).catch(() => undefined);
    if (st === undefined && reopening) {
      // the log is gone (removed by hand): the runtime opens a new one
      await this.o.runtime.reopenContainerLog?.(id);
      st = await stat(path).catch(() => undefined);
    }
    if (st === undefined) return false;
    if (reopening ? st.size < this.o.maxBytes : st.size <= this.o.maxBytes) return false;
    const copies = Array.from({ length: this.o.maxFiles - 1 }, (_, i) => `${path}.${i + 1}`);
    if (!(await this.inside(reopening ? [path] : [path, ...copies]))) return false;
    if (reopening) await this.rotateReopening(path, id);
    else await this.rotateCopying(path);
    return true;
  }

  /** The files stay inside one root (no link leads out); says so when not. */
  private async inside(paths: readonly string[]): Promise<boolean> {
    if (this.o.roots.length === 0) return true;
    let failure = '';
    for (const root of this.o.roots) {
      try {
        for (const p of paths) await checkWritableUnder(root, p);
        return true;
      } catch (err) {
        failure = userMessage(err);
      }
    }
    this.o.logger.warn(
      { file: paths[0], roots: this.o.roots, err: failure },
      'log rotation: refusing to rotate a log file outside the root directory',
    );
    return false;
  }

  private async rotateReopening(log: string, id: string): Promise<void> {
    const { inUse, unused } = await rotatedFiles(log);
    for (const f of unused) await unlink(f);
    const keep = Math.max(0, this.o.maxFiles - 2);
    const excess = inUse.slice(0, Math.max(0, inUse.length - keep));
    for (const f of excess) await unlink(f);
    for (const f of inUse.slice(excess.length)) if (!f.endsWith(COMPRESS_SUFFIX)) await compress(f);
    const rotated = `${log}.${rotationStamp(this.o.clock.now())}`;
    await rename(log, rotated);
    try {
      await this.o.runtime.reopenContainerLog?.(id);
    } catch (err) {
      // renamed back so that the next round tries again
      await rename(rotated, log).catch((back: unknown) =>
        this.o.logger.error(
          { rotated, log, err: userMessage(back) },
          'failed to rename the rotated log back',
        ),
      );
      throw err;
    }
  }

  private async rotateCopying(p: string): Promise<void> {
    const max = this.o.maxFiles;
    await unlink(`${p}.${max - 1}`).catch(() => undefined);
    for (let i = max - 2; i >= 1; i--)
      await rename(`${p}.${i}`, `${p}.${i + 1}`).catch(() => undefined);
    await copyFile(p, `${p}.1`);
    // writers hold the file open in append mode: truncating keeps them writing at the start
    await truncate(p, 0);
  }
}

/** `<f>` gzip'd to `<f>.gz` (written as `<f>.tmp`, then renamed), `<f>` removed. */
async function compress(f: string): Promise<void> {
  const tmp = f + TMP_SUFFIX;
  try {
    await pipeline(createReadStream(f), createGzip(), createWriteStream(tmp, { mode: 0o644 }));
    await rename(tmp, f + COMPRESS_SUFFIX);
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  await unlink(f);
}
