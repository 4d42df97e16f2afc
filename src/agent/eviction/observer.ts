// Observes the eviction signals: memory from /proc/meminfo, the node file system by statfs of the
// root directory, the image file system from the runtime's image service (Docker: its root dir;
// where images live on the node's file system, imagefs = nodefs), and pids from pid_max and the
// processes in /proc. Injected into the manager so tests can script the node's state.

import { readdir, readFile, statfs } from 'node:fs/promises';
import type { Signal } from './thresholds.js';
import type { ImageFsInfo } from '../runtime/types.js';

export interface SignalObservation {
  /** What is still available (bytes, inodes, pids). */
  readonly available: number;
  readonly capacity: number;
}

export type Observations = ReadonlyMap<Signal, SignalObservation>;

export interface SignalObserver {
  observe(): Promise<Observations>;
}

export function parseMeminfo(
  text: string,
): { totalBytes: number; availableBytes: number } | undefined {
  const kb = (name: string): number | undefined => {
    const m = new RegExp(`^${name}:\\s+(\\d+)\\s*kB`, 'm').exec(text);
    return m?.[1] === undefined ? undefined : Number(m[1]) * 1024;
  };
  const total = kb('MemTotal');
  const available = kb('MemAvailable') ?? (kb('MemFree') ?? 0) + (kb('Cached') ?? 0);
  return total === undefined ? undefined : { totalBytes: total, availableBytes: available };
}

export interface HostSignalObserverOptions {
  rootDir: string;
  /** The runtime's image file system; undefined (or answering undefined) means imagefs = nodefs. */
  imageFs?: () => Promise<ImageFsInfo | undefined>;
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
      out.set('allocatableMemory.available', {
        available: mem.availableBytes,
        capacity: mem.totalBytes,
      });
    }
    const fsObs = async (dir: string, prefix: 'nodefs' | 'imagefs'): Promise<void> => {
      const st = await statfs(dir).catch(() => undefined);
      if (st === undefined) return;
      out.set(`${prefix}.available`, {
        available: st.bavail * st.bsize,
        capacity: st.blocks * st.bsize,
      });
      if (st.files > 0)
        out.set(`${prefix}.inodesFree`, { available: st.ffree, capacity: st.files });
    };
    await fsObs(this.options.rootDir, 'nodefs');
    const image = await this.options.imageFs?.().catch(() => undefined);
    if (image === undefined) {
      for (const s of ['available', 'inodesFree'] as const) {
        const v = out.get(`nodefs.${s}`);
        if (v !== undefined) out.set(`imagefs.${s}`, v);
      }
    } else {
      out.set('imagefs.available', {
        available: image.capacityBytes - image.usedBytes,
        capacity: image.capacityBytes,
      });
      if (image.inodes !== undefined && image.inodesFree !== undefined)
        out.set('imagefs.inodesFree', { available: image.inodesFree, capacity: image.inodes });
    }
    // The container file system is the image file system here (no split image/container fs).
    for (const [from, to] of [
      ['imagefs.available', 'containerfs.available'],
      ['imagefs.inodesFree', 'containerfs.inodesFree'],
    ] as const) {
      const v = out.get(from);
      if (v !== undefined) out.set(to, v);
    }
    const pidMax = Number(
      (await readFile(`${proc}/sys/kernel/pid_max`, 'utf8').catch(() => '')).trim(),
    );
    if (Number.isFinite(pidMax) && pidMax > 0) {
      const entries = await readdir(proc).catch((): string[] => []);
      const running = entries.filter((e) => /^\d+$/.test(e)).length;
      out.set('pid.available', { available: pidMax - running, capacity: pidMax });
    }
    return out;
  }
}
