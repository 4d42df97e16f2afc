// Group commit for a store on disk (`--data-dir`): the writes that arrive in one turn of the
// event loop are committed in one SQLite transaction, so one fsync (synchronous = FULL) makes
// them all durable instead of one fsync each, which blocks the event loop for every write. No
// write is acknowledged before its transaction has committed: a caller's promise settles only
// after the batch's COMMIT returned. Each write keeps its own optimistic-concurrency check, in
// arrival order, against the state the earlier writes of the batch left; a conflict fails that
// write alone.

/** One write waiting for its batch. */
export interface PendingWrite<T> {
  readonly key: string;
  readonly op: number;
  readonly value: Uint8Array;
  readonly expectRev: number;
  /** Called once the batch committed, in revision order; its result settles the write. */
  readonly done: (rv: number) => T;
}

/** The outcome of one write in a committed batch: its revision, or why it was refused. */
export type WriteOutcome = number | Error;

export interface WriteBatcherOptions {
  /** Commits the writes in one transaction (outcomes in the same order), or throws for all. */
  readonly commit: (writes: readonly PendingWrite<unknown>[]) => WriteOutcome[];
}

interface Waiting {
  readonly write: PendingWrite<unknown>;
  readonly resolve: (v: unknown) => void;
  readonly reject: (err: unknown) => void;
}

export class WriteBatcher {
  private readonly commitAll: WriteBatcherOptions['commit'];
  private waiting: Waiting[] = [];
  private scheduled: NodeJS.Immediate | undefined;

  constructor(opts: WriteBatcherOptions) {
    this.commitAll = opts.commit;
  }

  /** Queues a write for the batch of this loop turn; settles after that batch committed. */
  add<T>(write: PendingWrite<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ write, resolve: resolve as (v: unknown) => void, reject });
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** Commits what is queued now (also called before the database closes). */
  flush(): void {
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    let outcomes: WriteOutcome[];
    try {
      outcomes = this.commitAll(batch.map((w) => w.write));
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const o = outcomes[i];
      if (typeof o === 'number') {
        try {
          w.resolve(w.write.done(o));
        } catch (err) {
          w.reject(err);
        }
      } else w.reject(o ?? new Error('write batch gave no outcome'));
    });
  }
}
