// Observes the eviction signals: memory from /proc/meminfo, the node and image file systems by
// statfs of the root directory (and the image directory when given), and pids from pid_max and
// the processes in /proc. Injected into the manager so tests can script the node's state.

import { readdir, readFile, statfs } from 'node:fs/promises';
import type { Signal } from './thresholds.js';

export interface SignalObservation {
  /** What is still available (bytes, inodes, pids). */
  readonly available: number;
  readonly capacity: number;
}

export type Observations = ReadonlyMap<Signal, SignalObservation>;

export interface SignalObserver {
  observe(): Promise<Observations>;
}

export function parseMeminfo(text: string): { totalBytes: number; availableBytes: number } | undefined {
  const kb = (name: string): number | undefined => {
    const m = new RegExp(`^${name}:\\s+(\\d+)\\s*kB`, 'm').exec(text);
    return m?.[1] === undefined ? undefined : Number(m[1]) * 1024;
  };
  const total = kb('MemTotal');
  const available = kb('MemAvailable') ?? ((kb('MemFree') ?? 0) + (kb('Cached') ?? 0));
  return total === undefined ? undefined : { totalBytes: total, availableBytes: available };
}

export interface HostSignalObserverOptions {
  rootDir: string;
  /** The image file system, when it is a separate one; otherwise imagefs = nodefs. */
  imageDir?: string;
  procDir?: string;
}

export class HostSignalObserver implements SignalObserver {
  constructor(private readonly options: HostSignalObserverOptions) {}

  async observe(): Promise<Observations> {
    const out = new Map<Signal, SignalObservation>();
    const proc = this.options.procDir ?? '/proc';
    const mem = parseMeminfo(await readFile(`${proc}/meminfo`, 'utf8').catch(() => ''));
    if (mem !== undefined) {
      out.set('memory.available', { available: mem.availableBytes, capacity: mem.totalBytes });
      // Without pod cgroups to sum, the allocatable view is the node's memory too.
      out.set('allocatableMemory.available', { available: mem.availableBytes, capacity: mem.totalBytes });
    }
    const fsObs = async (dir: string, prefix: 'nodefs' | 'imagefs'): Promise<void> => {
      const st = await statfs(dir).catch(() => undefined);
      if (st === undefined) return;
      out.set(`${prefix}.available`, { available: st.bavail * st.bsize, capacity: st.blocks * st.bsize });
      if (st.files > 0) out.set(`${prefix}.inodesFree`, { available: st.ffree, capacity: st.files });
    };
    await fsObs(this.options.rootDir, 'nodefs');
    await fsObs(this.options.imageDir ?? this.options.rootDir, 'imagefs');
    // The container file system is the image file system here (no split image/container fs).
    for (const [from, to] of [['imagefs.available', 'containerfs.available'], ['imagefs.inodesFree', 'containerfs.inodesFree']] as const) {
      const v = out.get(from);
      if (v !== undefined) out.set(to, v);
    }
    const pidMax = Number((await readFile(`${proc}/sys/kernel/pid_max`, 'utf8').catch(() => '')).trim());
    if (Number.isFinite(pidMax) && pidMax > 0) {
      const entries = await readdir(proc).catch(() => [] as string[]);
      const running = entries.filter((e) => /^\d+$/.test(e)).length;
      out.set('pid.available', { available: pidMax - running, capacity: pidMax });
    }
    return out;
  }
}
