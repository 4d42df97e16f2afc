// The TLS front processes: started with node:cluster so that they accept from one shared
// listening socket themselves (the kernel spreads the connections; this process accepts none),
// each given the configuration (messages.ts) over its IPC channel. A front that exits while the
// server runs is logged and replaced, after a back-off that grows while replacements keep dying.

import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../common/log/types.js';
import { BackoffSequence } from '../../common/util/backoff.js';
import { afterMs, systemClock, type Clock } from '../../common/util/clock.js';
import { asFrontReport, type FrontConfig, type FrontReport } from './messages.js';
import type { ServingTls } from './secure-options.js';

export interface TlsFrontsOptions extends Pick<
  FrontConfig,
  'host' | 'port' | 'innerPath' | 'secret'
> {
  readonly count: number;
  /** The front's script (tls-front.ts as built). */
  readonly entry: string;
  readonly tls: ServingTls;
  readonly logger: Logger;
  readonly clock?: Clock;
}

export interface TlsFronts {
  /** The address and port the fronts listen on (the port picked for 0). */
  readonly host: string;
  readonly port: number;
  /** Ends every front and waits for each to exit. */
  stop(): Promise<void>;
}

/** Why a front could not listen, as the listener's own error. */
export class FrontListenError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A front once it reports listening, or its listen error; a front that exits first fails too. */
function forkFront(config: FrontConfig): Promise<{ worker: Worker; host: string; port: number }> {
  const worker = cluster.fork();
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null, signal: string | null): void =>
      reject(new Error(`the TLS front exited before listening (code ${code}, signal ${signal})`));
    worker.once('exit', onExit);
    worker.on('message', function first(m: unknown) {
      const r = asFrontReport(m);
      if (r === undefined || r.kind === 'relay-failed') return;
      // The front listens for its configuration once it says so (its module loads first).
      if (r.kind === 'ready') {
        worker.send(config);
        return;
      }
      worker.off('message', first);
      worker.off('exit', onExit);
      if (r.kind === 'listening') resolve({ worker, host: r.address, port: r.port });
      else {
        worker.process.kill('SIGKILL');
        reject(new FrontListenError(r.code, r.message));
      }
    });
  });
}

/** Says what a running front reports: relays the main process refused. */
function reportsOf(worker: Worker, logger: Logger, clock: Clock): void {
  let last = 0;
  let quiet = 0;
  worker.on('message', (m: unknown) => {
    const r: FrontReport | undefined = asFrontReport(m);
    if (r?.kind !== 'relay-failed') return;
    const now = clock.nowMs();
    // At most one line every 10 s: a broken inner socket fails every connection.
    if (now - last < 10_000) {
      quiet++;
      return;
    }
    logger.error(
      { pid: worker.process.pid, err: r.message, alsoSince: quiet },
      'a TLS front could not relay a connection to the main process',
    );
    last = now;
    quiet = 0;
  });
}

function waitExit(worker: Worker): Promise<void> {
  if (worker.isDead()) return Promise.resolve();
  return new Promise((resolve) => worker.once('exit', () => resolve()));
}

/** The running fronts: each one that exits is replaced until stop(). */
class FrontPool {
  private readonly workers = new Set<Worker>();
  private stopping = false;
  private readonly backoff: BackoffSequence;

  constructor(
    private readonly config: FrontConfig,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {
    this.backoff = new BackoffSequence({ policy: { initialMs: 1_000, maxMs: 30_000 }, clock });
  }

  keep(worker: Worker): void {
    if (this.stopping) {
      worker.process.kill('SIGTERM');
      return;
    }
    this.workers.add(worker);
    reportsOf(worker, this.logger, this.clock);
    const startedAt = this.clock.nowMs();
    worker.once('exit', (code: number | null, signal: string | null) => {
      this.workers.delete(worker);
      if (this.stopping) return;
      // A front that ran a minute was healthy: its replacement starts without waiting long.
      if (this.clock.nowMs() - startedAt > 60_000) this.backoff.reset();
      this.logger.error(
        { pid: worker.process.pid, code, signal, restartInMs: this.backoff.peekMs() },
        'a TLS front process exited; starting another',
      );
      this.replace();
    });
  }

  /** Starts a front after the back-off; one that fails to start is tried again, later. */
  private replace(): void {
    const start = (): void => {
      if (this.stopping) return;
      forkFront(this.config).then(
        (f) => this.keep(f.worker),
        (err: unknown) => {
          this.logger.error({ err }, 'a TLS front process could not start; trying again');
          this.replace();
        },
      );
    };
    afterMs(this.clock, this.backoff.nextMs(), start, { unref: true });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const all = [...this.workers];
    for (const w of all) w.process.kill('SIGTERM');
    await Promise.all(all.map(waitExit));
  }
}

/** Starts `count` fronts on host:port; rejects (FrontListenError) if they cannot listen. */
export async function startTlsFronts(o: TlsFrontsOptions): Promise<TlsFronts> {
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  cluster.setupPrimary({ exec: o.entry, args: [] });
  const config: FrontConfig = {
    kind: 'config',
    ...o.tls,
    host: o.host,
    port: o.port,
    innerPath: o.innerPath,
    secret: o.secret,
    ticketKeys: randomBytes(48).toString('base64'),
  };
  const pool = new FrontPool(config, o.logger, o.clock ?? systemClock);
  const started = await Promise.allSettled(
    Array.from({ length: o.count }, () => forkFront(config)),
  );
  const ok = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  for (const f of ok) pool.keep(f.worker);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed !== undefined) {
    await pool.stop();
    throw failed.reason;
  }
  return {
    host: ok[0]?.host ?? o.host,
    port: ok[0]?.port ?? o.port,
    stop: () => pool.stop(),
  };
}

/** Each front's secret for this run: what it sends first on every inner connection. */
export function newFrontSecret(): string {
  return randomBytes(32).toString('hex');
}
