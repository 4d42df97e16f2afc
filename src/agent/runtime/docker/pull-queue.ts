// How many image pulls run at once: one (serializeImagePulls, the reference's default), at most
// maxParallelImagePulls (serializeImagePulls=false with a limit), or any number (no limit).
export interface PullQueueOptions {
  serialize: boolean;
  /** With serialize false: the most pulls at once; undefined: no limit. */
  maxParallel?: number;
}

export class PullQueue {
  private readonly limit: number;
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(opts: PullQueueOptions) {
    this.limit = opts.serialize ? 1 : Math.max(1, opts.maxParallel ?? Number.POSITIVE_INFINITY);
  }

  /** Runs `fn` when a slot is free; the slot is freed when it settles. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      // the slot passes straight to the next waiter, so the count never drops below the limit
      if (next !== undefined) next();
      else this.running--;
    }
  }

  /** Pulls in flight (tests). */
  get inFlight(): number {
    return this.running;
  }
}
