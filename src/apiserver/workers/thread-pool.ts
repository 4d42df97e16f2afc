// The worker threads of --worker-threads: each job goes to the thread with the fewest jobs in
// flight and its answer comes back by id. A thread that exits is logged and replaced after a
// back-off; the jobs it held fail with WorkerGoneError. While no thread is running, run()
// answers undefined. tryRun() folds both into undefined, and its callers then do the job on the
// main thread themselves (every job is a pure function of its input) rather than wait.

import { Worker } from 'node:worker_threads';
import type { Logger } from '../../common/log/types.js';
import { BackoffSequence } from '../../common/util/backoff.js';
import { afterMs, systemClock, type Clock } from '../../common/util/clock.js';
import type { Job, JobMessage, JobResult, ReplyMessage, Setup } from './messages.js';

export interface ThreadPoolOptions {
  readonly count: number;
  /** The thread's script (thread-main.ts as built). */
  readonly entry: string;
  readonly logger: Logger;
  readonly clock?: Clock;
}

/** The thread running a job ended before it answered. */
export class WorkerGoneError extends Error {}

interface Pending {
  readonly resolve: (r: JobResult) => void;
  readonly reject: (e: Error) => void;
}

interface Thread {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
  readonly startedAt: number;
}

function isReply(m: unknown): m is ReplyMessage {
  return typeof m === 'object' && m !== null && typeof (m as ReplyMessage).id === 'number';
}

export class ThreadPool {
  private readonly threads = new Set<Thread>();
  private readonly setups: Setup[] = [];
  private readonly backoff: BackoffSequence;
  private readonly clock: Clock;
  private nextId = 1;
  private stopping = false;

  constructor(private readonly o: ThreadPoolOptions) {
    this.clock = o.clock ?? systemClock;
    this.backoff = new BackoffSequence({
      policy: { initialMs: 1_000, maxMs: 30_000 },
      clock: this.clock,
    });
    for (let i = 0; i < o.count; i++) this.start();
  }

  get size(): number {
    return this.threads.size;
  }

  /** Sends a set-up message to every thread, and to each one started later. */
  setup(s: Setup): void {
    this.setups.push(s);
    for (const t of this.threads) t.worker.postMessage(s);
  }

  /** The job's answer from a thread; undefined when none is running. */
  run(job: Job): Promise<JobResult> | undefined {
    const t = this.leastBusy();
    if (t === undefined) return undefined;
    const id = this.nextId++;
    return new Promise<JobResult>((resolve, reject) => {
      t.pending.set(id, { resolve, reject });
      const m: JobMessage = { id, job };
      t.worker.postMessage(m);
    });
  }

  /**
   * The job's answer from a thread; undefined when none is running or the one running it died,
   * so that the caller does the job itself.
   */
  async tryRun(job: Job): Promise<JobResult | undefined> {
    try {
      return await this.run(job);
    } catch (err) {
      if (err instanceof WorkerGoneError) return undefined;
      throw err;
    }
  }

  /** Ends every thread and waits for each to exit. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.threads].map((t) => t.worker.terminate()));
  }

  private leastBusy(): Thread | undefined {
    let best: Thread | undefined;
    for (const t of this.threads)
      if (best === undefined || t.pending.size < best.pending.size) best = t;
    return best;
  }

  private start(): void {
    const worker = new Worker(this.o.entry);
    const t: Thread = { worker, pending: new Map(), startedAt: this.clock.nowMs() };
    this.threads.add(t);
    for (const s of this.setups) worker.postMessage(s);
    worker.on('message', (m: unknown) => {
      if (!isReply(m)) return;
      const p = t.pending.get(m.id);
      t.pending.delete(m.id);
      p?.resolve(m.result);
    });
    let error: Error | undefined;
    worker.on('error', (err) => (error = err));
    worker.once('exit', (code) => this.ended(t, code, error));
  }

  private ended(t: Thread, code: number, error: Error | undefined): void {
    this.threads.delete(t);
    const gone = new WorkerGoneError(`the worker thread exited (code ${code}) before answering`);
    for (const p of t.pending.values()) p.reject(gone);
    t.pending.clear();
    if (this.stopping) return;
    // A thread that ran a minute was healthy: its replacement starts without waiting long.
    if (this.clock.nowMs() - t.startedAt > 60_000) this.backoff.reset();
    this.o.logger.error(
      { code, err: error, restartInMs: this.backoff.peekMs() },
      'a worker thread exited; starting another (its jobs run on the main thread meanwhile)',
    );
    afterMs(this.clock, this.backoff.nextMs(), () => this.stopping || this.start(), {
      unref: true,
    });
  }
}
