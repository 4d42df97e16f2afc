// Group commit for a store on disk (`--data-dir`). The writes that arrive in one turn of the event
// loop (two, while the batches hold several writes) are committed in one SQLite transaction; the
// commit only writes the log (the WAL), and a sync makes the log durable. A fast disk is synced at
// once, on the event loop: a flush under 1 ms costs less than handing it to a thread (measured: a
// sync of 0.2-0.3 ms on a thread cost 4% of the event creates a second and 9% more CSR latency). A
// slow disk is synced off the event loop (a thread of libuv's pool), so the server goes on serving
// while it flushes: one sync runs at a time, and the batches committed while it runs share the next
// one. Which of the two follows the syncs' recent duration. No write settles, and nothing of it
// becomes visible, before a sync that covers its batch has finished: a committed batch is handed
// back (`durable`) and its writes settled, in commit order, only then. A write refused by its
// optimistic-concurrency check settles then too, so the write that beat it is durable and readable
// by the time the refusal is answered. A sync that fails leaves every write since the last good one
// undecided: they fail, and the batcher refuses every later write (fail-stop, as etcd stops on a
// failed WAL sync).

/** One write waiting for its batch. */
export interface PendingWrite<T> {
  readonly key: string;
  readonly op: number;
  readonly value: Uint8Array;
  readonly expectRev: number;
  /** Called once the batch is durable, in revision order; its result settles the write. */
  readonly done: (rv: number) => T;
}

/** The outcome of one write in a committed batch: its revision, or why it was refused. */
export type WriteOutcome = number | Error;

/** A committed batch: its outcomes, and what to make visible once it is durable. */
export interface CommittedBatch {
  readonly outcomes: readonly WriteOutcome[];
  /** Called once a sync covered the batch, before any of its writes settles. */
  readonly durable: () => void;
}

/** The log's sync, the consumer's view of it (wal-sync.ts makes the real one). */
export interface LogSync {
  /** Makes everything committed so far durable, off the event loop. */
  sync(): Promise<void>;
  /** The same, blocking (before the database closes, and for a write that must answer at once). */
  syncNow(): void;
}

/** A sync slower than this (the recent average) runs off the event loop. */
export const SYNC_OFF_LOOP_MS = 1;

export interface WriteBatcherOptions {
  /** Commits the writes in one transaction (outcomes in the same order), or throws for all. */
  readonly commit: (writes: readonly PendingWrite<unknown>[]) => CommittedBatch;
  readonly log: LogSync;
  /** Told once, when a sync fails and the batcher stops taking writes. */
  readonly onFail: (err: LogSyncError) => void;
  /** Milliseconds from any origin (performance.now unless a test passes its own). */
  readonly now?: () => number;
}

interface Waiting {
  readonly write: PendingWrite<unknown>;
  readonly resolve: (v: unknown) => void;
  readonly reject: (err: unknown) => void;
}

interface Committed {
  readonly batch: readonly Waiting[];
  readonly committed: CommittedBatch;
}

/** Every write since the last good sync failed with this; no later write is taken. */
export class LogSyncError extends Error {}

export class WriteBatcher {
  private readonly commitAll: WriteBatcherOptions['commit'];
  private readonly log: LogSync;
  private readonly onFail: (err: LogSyncError) => void;
  private readonly now: () => number;
  /** The syncs' recent duration (an exponential average), ms. */
  private syncMs = 0;
  /** Writes in the last batch committed. */
  private lastSize = 0;
  private waiting: Waiting[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  /** Committed, waiting for the next sync. */
  private committed: Committed[] = [];
  /** Committed and covered by the sync under way. */
  private syncing: Committed[] | undefined;
  private failed: LogSyncError | undefined;

  constructor(opts: WriteBatcherOptions) {
    this.commitAll = opts.commit;
    this.log = opts.log;
    this.onFail = opts.onFail;
    this.now = opts.now ?? (() => performance.now());
  }

  /** Whether the next sync runs off the event loop (the syncs were slow lately). */
  syncsOffLoop(): boolean {
    return this.syncMs >= SYNC_OFF_LOOP_MS;
  }

  /** Queues a write for the batch of this loop turn; settles once that batch is durable. */
  add<T>(write: PendingWrite<T>): Promise<T> {
    if (this.failed !== undefined) return Promise.reject(this.failed);
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ write, resolve: resolve as (v: unknown) => void, reject });
      this.scheduled ??= setImmediate(() => this.flushOrWait());
    });
  }

  /**
   * Flushes, or waits one more turn first when the last batch held several writes and the sync
   * runs on the event loop: while writers are many, the writes arriving in that turn share the
   * batch's sync (a sync was a quarter of an event create's time, the batches four writes).
   */
  private flushOrWait(): void {
    // The turn waited for flushes directly: a batch waits one turn at most.
    if (this.lastSize > 1 && !this.syncsOffLoop())
      this.scheduled = setImmediate(() => this.flush());
    else this.flush();
  }

  /** Commits what is queued now; it settles once a sync covers it. */
  flush(): void {
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    this.lastSize = batch.length;
    let committed: CommittedBatch;
    try {
      committed = this.commitAll(batch.map((w) => w.write));
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    this.committed.push({ batch, committed });
    this.startSync();
  }

  /**
   * Commits what is queued, syncs the log blocking and settles every committed write (before the
   * database closes, or before a write that is answered at once). Throws the LogSyncError once
   * a sync has failed.
   */
  drainNow(): void {
    this.flush();
    if (this.failed !== undefined) throw this.failed;
    const covered = [...(this.syncing ?? []), ...this.committed];
    if (covered.length === 0) return;
    this.syncing = undefined;
    this.committed = [];
    const failed = this.syncInline(covered);
    if (failed !== undefined) throw failed;
  }

  /**
   * Commits `commit`'s transaction after what is queued, then syncs blocking and settles
   * everything (a write answered at once). Throws what the commit throws, or the LogSyncError.
   */
  commitNow(commit: () => CommittedBatch): void {
    this.flush();
    if (this.failed !== undefined) throw this.failed;
    this.committed.push({ batch: [], committed: commit() });
    this.drainNow();
  }

  private startSync(): void {
    if (this.syncing !== undefined || this.committed.length === 0) return;
    const covered = this.committed;
    this.committed = [];
    if (!this.syncsOffLoop()) {
      this.syncInline(covered);
      return;
    }
    this.syncing = covered;
    const start = this.now();
    this.log.sync().then(
      () => {
        this.took(start);
        this.synced(covered);
      },
      (err: unknown) => {
        if (this.syncing === covered) this.fail(covered, err);
      },
    );
  }

  /** Syncs on the event loop and settles `covered`; the failure when the sync failed. */
  private syncInline(covered: Committed[]): LogSyncError | undefined {
    const start = this.now();
    try {
      this.log.syncNow();
    } catch (err) {
      return this.fail(covered, err);
    }
    this.took(start);
    settle(covered);
    return undefined;
  }

  private took(start: number): void {
    this.syncMs += (this.now() - start - this.syncMs) * 0.25;
  }

  private synced(covered: Committed[]): void {
    // drainNow() may have settled these already (and started nothing since).
    if (this.syncing !== covered) return;
    this.syncing = undefined;
    settle(covered);
    this.startSync();
  }

  private fail(covered: Committed[], cause: unknown): LogSyncError {
    if (this.failed !== undefined) return this.failed;
    const reason = cause instanceof Error ? cause.message : String(cause);
    this.failed = new LogSyncError(
      `storage: the database log could not be synced to disk (${reason}); the outcome of the ` +
        'writes since the last sync is unknown and no further write is taken: restart ' +
        'plat-apiserver',
      { cause },
    );
    const undecided = [...covered, ...this.committed];
    this.syncing = undefined;
    this.committed = [];
    for (const c of undecided) for (const w of c.batch) w.reject(this.failed);
    for (const w of this.waiting) w.reject(this.failed);
    this.waiting = [];
    this.onFail(this.failed);
    return this.failed;
  }
}

/** Makes each batch visible and settles its writes, in commit order. */
function settle(covered: readonly Committed[]): void {
  for (const { batch, committed } of covered) {
    committed.durable();
    batch.forEach((w, i) => {
      const o = committed.outcomes[i];
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
