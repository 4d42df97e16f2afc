// The volume usage of every pod, computed every --volume-stats-agg-period and cached, as the
// reference's fsResourceAnalyzer: the first pass at start, then one per period; a period of 0 (or
// less) disables the collection ("Volume stats collection disabled") and no volume stats are
// reported. /stats/summary serves the cache as pods[].volume[]; local storage eviction reads it.
import type { Logger } from '../../common/log/types.js';
import type { Clock } from '../../common/util/clock.js';
import { userMessage } from '../../common/util/errors.js';
import type { FsUsage } from './usage.js';

/** One volume's entry in /stats/summary (the reference's VolumeStats: FsStats then name). */
export interface VolumeStats {
  readonly time: string;
  readonly availableBytes: number;
  readonly capacityBytes: number;
  readonly usedBytes: number;
  readonly inodesFree: number;
  readonly inodes: number;
  readonly inodesUsed: number;
  readonly name: string;
}

/** A pod's measurable volumes: name and host directory. */
export interface PodVolumes {
  readonly uid: string;
  readonly volumes: readonly { readonly name: string; readonly path: string }[];
}

export interface VolumeStatsCacheOptions {
  clock: Clock;
  logger: Logger;
  /** --volume-stats-agg-period in ms; 0 or less disables the collection. */
  periodMs: number;
  /** The pods whose volumes are measured. */
  pods: () => readonly PodVolumes[];
  measure: (path: string) => Promise<FsUsage>;
}

export class VolumeStatsCache {
  private cache = new Map<string, VolumeStats[]>();

  constructor(private readonly o: VolumeStatsCacheOptions) {}

  get enabled(): boolean {
    return this.o.periodMs > 0;
  }

  /** The pod's volume stats of the last pass; undefined before one or when disabled. */
  get(uid: string): readonly VolumeStats[] | undefined {
    return this.cache.get(uid);
  }

  /** One pass over every pod's volumes; pods that went are dropped. */
  async refresh(): Promise<void> {
    const next = new Map<string, VolumeStats[]>();
    for (const pod of this.o.pods()) {
      const out: VolumeStats[] = [];
      for (const v of pod.volumes) {
        const u = await this.o.measure(v.path).catch((err: unknown) => {
          this.o.logger.debug(
            { pod: pod.uid, volume: v.name, err: userMessage(err) },
            'cannot measure the volume; it is left out of the stats',
          );
          return undefined;
        });
        if (u === undefined) continue;
        const time = this.o.clock.now().toISOString();
        out.push({
          time,
          availableBytes: u.availableBytes,
          capacityBytes: u.capacityBytes,
          usedBytes: u.usedBytes,
          inodesFree: u.inodesFree,
          inodes: u.inodes,
          inodesUsed: u.inodesUsed,
          name: v.name,
        });
      }
      next.set(pod.uid, out);
    }
    this.cache = next;
  }

  /** Runs until `signal` aborts: a pass at once, then one every period. */
  async run(signal: AbortSignal): Promise<void> {
    if (!this.enabled) {
      this.o.logger.info(
        { option: '--volume-stats-agg-period' },
        'Volume stats collection disabled',
      );
      return;
    }
    while (!signal.aborted) {
      await this.refresh().catch((err: unknown) =>
        this.o.logger.warn(
          { err: userMessage(err) },
          'volume stats pass failed; retrying at the next period',
        ),
      );
      await this.o.clock.sleep(this.o.periodMs, signal).catch(() => undefined);
    }
  }
}
