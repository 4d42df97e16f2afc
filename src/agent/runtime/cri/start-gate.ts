// A bound on the pod-start calls (RunPodSandbox, CreateContainer, StartContainer) in flight at
// once on the runtime. Thirty pods arriving together otherwise start thirty sandboxes (pause,
// CNI, shims) at once, the runtime thrashes, and every pod finishes near the end; bounded, pods
// finish one after another. A waiting call of a later stage goes first (a pod with its sandbox
// gets its container before another pod gets a sandbox), in arrival order within a stage. A slot
// is held for one call only, never while waiting for another, so a start can never deadlock:
// each call's deadline (--runtime-request-timeout) bounds how long a slot is held.
import { availableParallelism } from 'node:os';

/** The stages of a pod's start, in order: a later one is served first. */
export const START_STAGE = { sandbox: 0, create: 1, start: 2 } as const;
export type StartStage = (typeof START_STAGE)[keyof typeof START_STAGE];

/**
 * The default bound: four per CPU of the host, at least 8. Measured on 2 CPUs with containerd
 * 1.6: 30 at once finish together near the end; 4 at once finish one after another (p50 down)
 * but leave the runtime's waits on I/O and forks idle (all Running later).
 */
export function defaultStartLimit(cpus = availableParallelism()): number {
  return Math.max(8, 4 * cpus);
}

interface Waiter {
  readonly stage: StartStage;
  readonly go: () => void;
}

export class StartGate {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  /** `limit` calls at most at once; 0: no bound. */
  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 0)
      throw new RangeError(`the start-call limit must be a whole number >= 0, not ${limit}`);
  }

  /** Calls in flight now (for tests and traces). */
  get inFlight(): number {
    return this.active;
  }

  /** Calls waiting for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `call` once a slot is free; the slot is given back when it settles, either way. */
  async run<T>(stage: StartStage, call: () => Promise<T>): Promise<T> {
    await this.acquire(stage);
    try {
      return await call();
    } finally {
      this.release();
    }
  }

  private acquire(stage: StartStage): Promise<void> {
    if (this.limit === 0 || this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiting.push({ stage, go: resolve });
    });
  }

  private release(): void {
    const next = this.takeNext();
    // the slot passes straight to the next waiter: the count stays
    if (next !== undefined) next.go();
    else this.active--;
  }

  /** The waiter of the latest stage, the earliest of them. */
  private takeNext(): Waiter | undefined {
    let best = -1;
    for (let i = 0; i < this.waiting.length; i++) {
      const w = this.waiting[i];
      const b = this.waiting[best];
      if (w !== undefined && (b === undefined || w.stage > b.stage)) best = i;
    }
    return best < 0 ? undefined : this.waiting.splice(best, 1)[0];
  }
}
