// What a server costs while the simulator drives it: its processes' CPU seconds (summed) at any
// moment, their resident set sampled every second (RSS moves with each collection, so a window
// is told by its median and maximum), and the size of its data directory on disk.

import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { percentile } from './apiserver-harness.js';
import { cpuSeconds, rssMb } from './proc-usage.js';

export interface Sample {
  readonly at: number;
  readonly rssMb: number;
}

export class UsageSampler {
  private readonly samples: Sample[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pids: readonly number[]) {
    this.timer = setInterval(() => this.samples.push({ at: Date.now(), rssMb: this.rss() }), 1000);
  }

  /** CPU seconds of every process so far (0 when no process is known). */
  cpu(): number {
    return this.pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  }

  rss(): number {
    return this.pids.reduce((sum, pid) => sum + rssMb(pid), 0);
  }

  /** Median and maximum RSS (MB) of the samples taken in [from, to]. */
  rssIn(from: number, to: number): { median: number; max: number } {
    const xs = this.samples.filter((s) => s.at >= from && s.at <= to).map((s) => s.rssMb);
    return { median: percentile(xs, 0.5), max: Math.max(0, ...xs) };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Bytes of every file under `dir` (0 when it is not given). */
export async function dirBytes(dir: string | undefined): Promise<number> {
  if (dir === undefined) return 0;
  let total = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += await dirBytes(p);
    else if (e.isFile()) total += (await stat(p)).size;
  }
  return total;
}
