// --lock-file and --exit-on-lock-contention. The reference takes an exclusive flock on the file
// (blocking until it gets it) and, with --exit-on-lock-contention, exits as soon as another
// process opens the file. Node has no flock, so the lock is a pid file created with O_EXCL: a
// holder that no longer runs is detected and its file replaced. A process waiting for the lock
// touches the file on every attempt; the holder watches the file and, when asked to exit on
// contention, reports the touch through `onContention`.
import { open, readFile, unlink, utimes } from 'node:fs/promises';
import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from '../../common/log/types.js';
import { type Clock, systemClock } from '../../common/util/clock.js';
import { BackoffSequence } from '../../common/util/backoff.js';
import { errnoText } from '../config/load.js';
import { errnoCode } from '../../common/util/errno.js';

export interface LockOptions {
  path: string;
  logger: Logger;
  signal: AbortSignal;
  clock?: Clock;
  /** Called once when another process tries to take the lock (only watched when given). */
  onContention?: () => void;
  /** First and longest wait between attempts while another process holds the lock. */
  retryMs?: number;
  maxRetryMs?: number;
}

export interface HeldLock {
  readonly path: string;
  release(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) === 'EPERM';
  }
}

async function holderOf(path: string): Promise<number | undefined> {
  try {
    const text = (await readFile(path, 'utf8')).trim();
    return /^\d+$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

async function tryCreate(path: string): Promise<boolean> {
  try {
    const fh = await open(path, 'wx', 0o644);
    try {
      await fh.writeFile(`${process.pid}\n`);
      await fh.sync();
    } finally {
      await fh.close();
    }
    return true;
  } catch (err) {
    if (errnoCode(err) === 'EEXIST') return false;
    throw new Error(`unable to acquire file lock on "${path}": ${errnoText(err)}`, { cause: err });
  }
}

/** Waits (with back-off) until this process holds the lock file. */
async function waitForLock(opts: LockOptions, clock: Clock): Promise<void> {
  const log = opts.logger;
  const backoff = new BackoffSequence({
    clock,
    policy: { initialMs: opts.retryMs ?? 500, maxMs: opts.maxRetryMs ?? 5000 },
  });
  let logged = false;
  for (;;) {
    if (opts.signal.aborted)
      throw new Error(`gave up waiting for the lock on "${opts.path}": stopping`);
    if (await tryCreate(opts.path)) return;
    const pid = await holderOf(opts.path);
    if (pid === process.pid) return;
    if (pid === undefined || !alive(pid)) {
      log.warn(
        { path: opts.path, pid },
        'Removing stale lock file left by a process that no longer runs',
      );
      await unlink(opts.path).catch(() => undefined);
      continue;
    }
    // Tell the holder someone wants the lock (it exits when run with --exit-on-lock-contention).
    await utimes(opts.path, clock.now(), clock.now()).catch(() => undefined);
    if (!logged) {
      log.info(
        { path: opts.path, holder: pid },
        'Waiting for the lock file held by another process; stop that process or remove ' +
          'the file if it is stale',
      );
      logged = true;
    }
    await backoff.sleep(opts.signal).catch(() => undefined);
  }
}

/** --exit-on-lock-contention: `onContention` once another process touches the lock file. */
function watchContention(opts: LockOptions): FSWatcher | undefined {
  const notify = opts.onContention;
  if (notify === undefined) return undefined;
  let fired = false;
  const watcher = watch(opts.path, { persistent: false }, () => {
    if (fired) return;
    fired = true;
    opts.logger.info(
      { path: opts.path },
      'Detected lock contention on the lock file: exiting (--exit-on-lock-contention)',
    );
    notify();
  });
  watcher.on('error', () => undefined);
  return watcher;
}

/** Takes the lock, waiting (with back-off) while a live process holds it. */
export async function acquireLock(opts: LockOptions): Promise<HeldLock> {
  await waitForLock(opts, opts.clock ?? systemClock);
  opts.logger.info({ path: opts.path }, 'Acquired lock file');
  const watcher = watchContention(opts);
  let released = false;
  return {
    path: opts.path,
    async release(): Promise<void> {
      if (released) return;
      released = true;
      watcher?.close();
      if ((await holderOf(opts.path)) === process.pid)
        await unlink(opts.path).catch(() => undefined);
    },
  };
}
