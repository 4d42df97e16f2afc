// When the bytes of a process:// container's log appeared. A process writes its output straight
// to its log file (it outlives the agent), so no line carries a time as the reference's CRI log
// lines do (`2016-10-06T00:17:09.669794202Z stdout F text`). The agent watches the file while
// the container runs and keeps marks (size, time): every byte up to `size` was in the file at
// `time`. A line's time is the first mark at or past its end: never before it was written, at
// most one watch event later. This is what sinceSeconds/sinceTime and timestamps of /containerLogs
// read for process:// (timedLines below), as the reference reads the times of CRI log lines.

import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Clock } from '../../../common/util/clock.js';
import { linesSince } from '../log-lines.js';
import type { TimedLogLine } from '../types.js';

/**
 * Marks kept per container (16 KiB at most). Past this the grain doubles: marks less than a grain
 * after the first of their group are merged into the group's last, so a line may take a time up
 * to one grain later than it was seen (never earlier), alike for old and new lines.
 */
const MAX_MARKS = 1024;

export class LogTimes {
  // The marks as two packed number arrays (sizes and times ascending), not objects.
  private sizes: number[] = [];
  private times: number[] = [];
  private grainMs = 0;
  private groupStart = -Infinity;
  private watcher: FSWatcher | undefined;
  private statting = false;
  private again = false;

  constructor(private readonly o: { path: string; clock: Clock }) {}

  /** Bytes up to `size` were in the file at `ms`. A file that shrank (truncated) starts over. */
  mark(size: number, ms: number): void {
    const lastSize = this.sizes.at(-1);
    if (lastSize !== undefined && size < lastSize) {
      this.sizes = [];
      this.times = [];
      this.groupStart = -Infinity;
    } else if (lastSize === size) return;
    this.add(size, Math.max(ms, this.times.at(-1) ?? ms));
    if (this.sizes.length > MAX_MARKS) this.coarsen();
  }

  /**
   * Watches the file from now on. `prior` bytes already there (a container adopted from an
   * earlier agent) are marked with the file's modification time: none was written after it.
   */
  async watch(prior: number): Promise<void> {
    if (prior > 0) {
      const st = await stat(this.o.path).catch(() => undefined);
      if (st !== undefined) this.mark(st.size, Math.min(st.mtimeMs, this.o.clock.nowMs()));
    }
    try {
      this.watcher = watch(this.o.path, { persistent: false }, () => this.sample());
      this.watcher.on('error', () => this.stop());
    } catch {
      // the file is gone: what is read later is marked then (readAt)
    }
  }

  stop(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  /** The time of a line ending at byte `end`, or `fallbackMs` past the last mark. */
  timeOf(end: number, fallbackMs: number): number {
    // Binary search: the first mark whose size reaches `end`.
    let lo = 0;
    let hi = this.sizes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.sizes[mid] as number) >= end) hi = mid;
      else lo = mid + 1;
    }
    return this.times[lo] ?? fallbackMs;
  }

  private add(size: number, ms: number): void {
    const n = this.sizes.length;
    if (n > 0 && ms - this.groupStart < this.grainMs) {
      this.sizes[n - 1] = size;
      this.times[n - 1] = ms;
      return;
    }
    this.sizes.push(size);
    this.times.push(ms);
    this.groupStart = ms;
  }

  /** Doubles the grain and merges the marks again, until at most half the room is used. */
  private coarsen(): void {
    do {
      this.grainMs = Math.max(1, this.grainMs * 2);
      const [sizes, times] = [this.sizes, this.times];
      this.sizes = [];
      this.times = [];
      this.groupStart = -Infinity;
      sizes.forEach((size, i) => this.add(size, times[i] as number));
    } while (this.sizes.length > MAX_MARKS / 2);
  }

  /** One stat at a time; events during it are folded into one more. */
  private sample(): void {
    if (this.statting) {
      this.again = true;
      return;
    }
    this.statting = true;
    void stat(this.o.path)
      .then(
        (st) => this.mark(st.size, this.o.clock.nowMs()),
        () => undefined,
      )
      .finally(() => {
        this.statting = false;
        if (this.again && this.watcher !== undefined) {
          this.again = false;
          this.sample();
        }
      });
  }
}

/** RFC 3339 with the fraction's trailing zeros dropped, as Go's RFC3339Nano prints times. */
export function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}

export interface TimedLinesInput {
  /** The container's part of its log file. */
  readonly bytes: Buffer;
  /** The offset of `bytes` in the file. */
  readonly start: number;
  readonly times: LogTimes | undefined;
  /** The time of bytes past the last mark (now for a running container, its exit otherwise). */
  readonly fallbackMs: number;
  readonly tailLines?: number;
  readonly sinceMs?: number;
}

/**
 * The log's lines with their times: the tail first, then the lines before `since` dropped, as the
 * reference's ReadLogs.
 */
export function timedLines(i: TimedLinesInput): TimedLogLine[] {
  const lines: TimedLogLine[] = [];
  let at = 0;
  while (at < i.bytes.length) {
    const nl = i.bytes.indexOf(10, at);
    const end = nl === -1 ? i.bytes.length : nl + 1;
    const ms = i.times?.timeOf(i.start + end, i.fallbackMs) ?? i.fallbackMs;
    lines.push({ time: rfc3339Nano(ms), text: i.bytes.subarray(at, end).toString('utf8') });
    at = end;
  }
  const tail =
    i.tailLines === undefined ? lines : i.tailLines === 0 ? [] : lines.slice(-i.tailLines);
  return linesSince(tail, i.sinceMs);
}
