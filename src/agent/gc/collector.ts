// Garbage collection: dead containers (per container, globally, after a minimum age), unused
// images when the image file system is over the high threshold (down to the low one), and
// container log rotation (log-rotation.ts).
import type { Clock } from '../../common/util/clock.js';
import type { Logger } from '../../common/log/types.js';
import { userMessage } from '../../common/util/errors.js';
import { parseQuantity } from '../../common/util/values/quantity.js';
import type {
  ContainerRuntime,
  ImageInfo,
  ImageService,
  RuntimeContainer,
} from '../runtime/types.js';
import { runEvery } from '../../common/util/every.js';
import { LogRotation } from './log-rotation.js';

export interface GcOptions {
  runtime: ContainerRuntime;
  images: ImageService;
  /** Whether the pod is still wanted (its newest dead container instances are kept for status). */
  isPodActive: (uid: string) => boolean;
  /** Images that pods on this node reference. */
  inUseImages: () => Set<string>;
  /** Global cap of dead containers; negative disables. */
  maxDeadContainers: number;
  /** Dead instances kept per container; negative disables. */
  maxDeadPerContainer: number;
  minContainerAgeMs: number;
  imageHighThresholdPercent: number;
  imageLowThresholdPercent: number;
  imageMinAgeMs: number;
  /** imageMaximumGCAge: an image unused this long is removed whatever the disk usage; 0: never. */
  imageMaxAgeMs?: number;
  /** A quantity such as 10Mi. */
  containerLogMaxSize: string;
  containerLogMaxFiles: number;
  /** Log files are rotated only inside this directory (the agent's --root-dir)... */
  logRoot?: string;
  /** ...or this one (podLogsDir, where a CRI runtime writes the containers' logs). */
  podLogsDir?: string;
  clock: Clock;
  logger: Logger;
  containerGcIntervalMs?: number;
  imageGcIntervalMs?: number;
  /** containerLogMonitorInterval (default 10 s). */
  logRotateIntervalMs?: number;
  /** containerLogMaxWorkers: log files rotated at once (default 1). */
  logRotateWorkers?: number;
}

/** Exited containers (not sandboxes) dead for at least `minAgeMs`. */
function deadContainers(
  all: readonly RuntimeContainer[],
  now: number,
  minAgeMs: number,
): RuntimeContainer[] {
  return all.filter(
    (c) =>
      c.kind !== 'sandbox' &&
      c.state === 'exited' &&
      now - (c.finishedAtMs ?? c.createdAtMs) >= minAgeMs,
  );
}

/** The instances of each container (pod, kind, name), newest first. */
function byContainer(dead: readonly RuntimeContainer[]): RuntimeContainer[][] {
  const groups = new Map<string, RuntimeContainer[]>();
  for (const c of dead) {
    const k = `${c.podUid}/${c.kind}/${c.name}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  const lists = [...groups.values()];
  for (const list of lists)
    list.sort((a, b) => b.attempt - a.attempt || b.createdAtMs - a.createdAtMs);
  return lists;
}

/** The newest instance, dead or alive, of `c`'s container. */
function newestInstance(
  all: readonly RuntimeContainer[],
  c: RuntimeContainer,
): RuntimeContainer | undefined {
  return all
    .filter((x) => x.podUid === c.podUid && x.name === c.name && x.kind === c.kind)
    .sort((a, b) => b.attempt - a.attempt)[0];
}

export class GarbageCollector {
  private readonly opts: GcOptions;
  private readonly firstSeen = new Map<string, number>();
  /** When each image was last seen in use (or first seen), as the reference's lastUsed. */
  private readonly lastUsed = new Map<string, number>();
  private loops: Promise<void>[] = [];

  private readonly rotation: LogRotation;

  constructor(opts: GcOptions) {
    this.opts = opts;
    this.rotation = new LogRotation({
      runtime: opts.runtime,
      maxBytes: parseQuantity(opts.containerLogMaxSize).value,
      maxFiles: Math.max(2, opts.containerLogMaxFiles),
      workers: Math.max(1, opts.logRotateWorkers ?? 1),
      roots: [opts.logRoot, opts.podLogsDir].filter((r): r is string => r !== undefined),
      clock: opts.clock,
      logger: opts.logger,
    });
  }

  start(signal: AbortSignal): void {
    this.loops.push(
      this.every(this.opts.containerGcIntervalMs ?? 60_000, signal, 'container', () =>
        this.collectContainers(),
      ),
    );
    this.loops.push(
      this.every(this.opts.imageGcIntervalMs ?? 300_000, signal, 'image', () =>
        this.collectImages(),
      ),
    );
    this.loops.push(
      this.every(this.opts.logRotateIntervalMs ?? 10_000, signal, 'log', () => this.rotateLogs()),
    );
  }

  async stopped(): Promise<void> {
    await Promise.all(this.loops);
  }

  private every(
    ms: number,
    signal: AbortSignal,
    what: string,
    fn: () => Promise<unknown>,
  ): Promise<void> {
    return runEvery({
      clock: this.opts.clock,
      ms,
      signal,
      run: fn,
      onError: (err) =>
        this.opts.logger.warn(
          { err: userMessage(err) },
          `${what} garbage collection failed; retrying next period`,
        ),
    });
  }

  /** Removes dead containers beyond the limits; returns the ids removed. */
  async collectContainers(): Promise<string[]> {
    const now = this.opts.clock.nowMs();
    const all = await this.opts.runtime.listContainers();
    const removed: string[] = [];
    const survivors: RuntimeContainer[] = [];
    const dead = deadContainers(all, now, this.opts.minContainerAgeMs);
    for (const instances of byContainer(dead)) {
      const kept = this.keptOf(instances, all);
      survivors.push(...kept);
      for (const c of instances) if (!kept.includes(c)) await this.remove(c, removed);
    }
    for (const c of this.overTotalLimit(survivors, all)) await this.remove(c, removed);
    // sandboxes: dead ones of gone pods, and older dead ones of active pods
    for (const s of this.removableSandboxes(all, removed)) await this.remove(s, removed);
    if (removed.length > 0)
      this.opts.logger.info({ removed: removed.length }, 'removed dead containers');
    return removed;
  }

  /** Removes one container or sandbox, adding its id to `removed`; a failure is logged. */
  private async remove(c: RuntimeContainer, removed: string[]): Promise<void> {
    try {
      if (c.kind === 'sandbox') await this.opts.runtime.removePodSandbox(c.id);
      else await this.opts.runtime.removeContainer(c.id);
      removed.push(c.id);
    } catch (err) {
      this.opts.logger.warn({ id: c.id, err: userMessage(err) }, 'could not remove dead container');
    }
  }

  /** Whether `c` is the newest instance of an active pod's container (which carries its status). */
  private holdsStatus(c: RuntimeContainer, all: readonly RuntimeContainer[]): boolean {
    return this.opts.isPodActive(c.podUid) && newestInstance(all, c)?.id === c.id;
  }

  /**
   * The dead instances of one container (newest first) that stay: none of a gone pod, at most
   * maxDeadPerContainer of an active one, and always the one holding its status.
   */
  private keptOf(
    instances: readonly RuntimeContainer[],
    all: readonly RuntimeContainer[],
  ): RuntimeContainer[] {
    const first = instances[0];
    if (first === undefined || !this.opts.isPodActive(first.podUid)) return [];
    const newest = newestInstance(all, first);
    const keep =
      this.opts.maxDeadPerContainer < 0 ? instances.length : this.opts.maxDeadPerContainer;
    return instances.filter((c, i) => c.id === newest?.id || i < keep);
  }

  /** The oldest survivors beyond maxDeadContainers, never one holding its container's status. */
  private overTotalLimit(
    survivors: readonly RuntimeContainer[],
    all: readonly RuntimeContainer[],
  ): RuntimeContainer[] {
    const max = this.opts.maxDeadContainers;
    if (max < 0 || survivors.length <= max) return [];
    return survivors
      .filter((c) => !this.holdsStatus(c, all))
      .sort((a, b) => (a.finishedAtMs ?? a.createdAtMs) - (b.finishedAtMs ?? b.createdAtMs))
      .slice(0, survivors.length - max);
  }

  /** Dead sandboxes of gone pods, or older than another of their pod's, holding no container. */
  private removableSandboxes(
    all: readonly RuntimeContainer[],
    removed: readonly string[],
  ): RuntimeContainer[] {
    return all.filter((s) => {
      if (s.kind !== 'sandbox' || s.state !== 'exited') return false;
      const newer = all.some(
        (x) => x.kind === 'sandbox' && x.podUid === s.podUid && x.attempt > s.attempt,
      );
      const hasContainers = all.some(
        (x) =>
          x.kind !== 'sandbox' &&
          x.podUid === s.podUid &&
          !removed.includes(x.id) &&
          x.sandboxId === s.id,
      );
      return (!this.opts.isPodActive(s.podUid) || newer) && !hasContainers;
    });
  }

  /** Images no container or pod uses; records first-seen and last-used times on the way. */
  private async unusedImages(): Promise<{ list: ImageInfo[]; unused: ImageInfo[] }> {
    const now = this.opts.clock.nowMs();
    const list = await this.opts.images.listImages();
    const inUse = this.opts.inUseImages();
    const containers = await this.opts.runtime.listContainers();
    const usedIds = new Set(containers.map((c) => c.imageId).filter((x) => x !== ''));
    const usedTags = new Set([...inUse, ...containers.map((c) => c.image)]);
    const unused: ImageInfo[] = [];
    for (const i of list) {
      if (!this.firstSeen.has(i.id)) this.firstSeen.set(i.id, now);
      const used = usedIds.has(i.id) || i.tags.some((t) => usedTags.has(t));
      if (used || !this.lastUsed.has(i.id)) this.lastUsed.set(i.id, now);
      if (!used) unused.push(i);
    }
    return { list, unused };
  }

  private async removeImages(
    candidates: readonly ImageInfo[],
    enough: (freed: number) => boolean,
  ): Promise<string[]> {
    const removed: string[] = [];
    let freed = 0;
    for (const i of candidates) {
      if (enough(freed)) break;
      try {
        await this.opts.images.removeImage(i.id);
        removed.push(i.id);
        freed += i.sizeBytes;
        this.firstSeen.delete(i.id);
        this.lastUsed.delete(i.id);
      } catch (err) {
        this.opts.logger.warn(
          { image: i.tags[0] ?? i.id, err: userMessage(err) },
          'could not remove image',
        );
      }
    }
    return removed;
  }

  /**
   * Removes images unused for longer than imageMaximumGCAge (whatever the disk usage, as the
   * reference's freeOldImages), then frees space when usage is at or over the high threshold.
   * Returns the ids removed.
   */
  async collectImages(): Promise<string[]> {
    const { images, clock } = this.opts;
    const maxAge = this.opts.imageMaxAgeMs ?? 0;
    if (this.opts.imageHighThresholdPercent >= 100 && maxAge <= 0) return [];
    const now = clock.nowMs();
    let { unused } = await this.unusedImages();
    const removed: string[] = [];
    if (maxAge > 0) {
      const old = unused.filter((i) => now - (this.lastUsed.get(i.id) ?? now) > maxAge);
      const gone = await this.removeImages(old, () => false);
      if (gone.length > 0)
        this.opts.logger.info(
          { removed: gone.length, imageMaximumGCAge: `${maxAge / 1000}s` },
          'removed images unused for longer than imageMaximumGCAge',
        );
      removed.push(...gone);
      unused = unused.filter((i) => !gone.includes(i.id));
    }
    if (this.opts.imageHighThresholdPercent >= 100) return removed;
    const fs = await images.imageFsInfo();
    if (fs === undefined || fs.capacityBytes <= 0) return removed;
    const usage = (fs.usedBytes * 100) / fs.capacityBytes;
    if (usage < this.opts.imageHighThresholdPercent) return removed;
    const toFree = fs.usedBytes - (fs.capacityBytes * this.opts.imageLowThresholdPercent) / 100;
    const candidates = unused
      .filter((i) => now - (this.firstSeen.get(i.id) ?? now) >= this.opts.imageMinAgeMs)
      .sort((a, b) => a.createdAtMs - b.createdAtMs);
    const freed = await this.removeImages(candidates, (f) => f >= toFree);
    this.opts.logger.info(
      { usagePercent: Math.round(usage), removed: freed.length },
      'image garbage collection ran',
    );
    return [...removed, ...freed];
  }

  /** Rotates the log files over the size limit (log-rotation.ts); returns how many. */
  rotateLogs(): Promise<number> {
    return this.rotation.run();
  }
}
