// Checks of the host that run before anything else starts (not with --print-config): the lock
// file, cgroup v1 (--fail-cgroupv1), swap (--fail-swap-on) and the open-files limit
// (--max-open-files), the kernel defaults (--protect-kernel-defaults) and the agent's oom_score_adj
// (--oom-score-adj). Each refusal names the setting that causes it and how to change it.
import { execFile } from 'node:child_process';
import { readFile, statfs } from 'node:fs/promises';
import type { NodeAgentFlags } from '../config/flags-type.js';
import type { NodeAgentConfiguration } from '../config/schema.js';
import type { Logger } from '../../common/log/types.js';
import { NodeAgentError } from '../../common/util/errors.js';
import { acquireLock, type HeldLock } from './lock-file.js';
import { enforceKernelDefaults } from './kernel-defaults.js';
import { applySelfOomScoreAdj, SELF_OOM_SCORE_ADJ } from './self-oom.js';

const CGROUP2_SUPER_MAGIC = 0x63677270;

export class HostCheckError extends NodeAgentError {
  constructor(message: string) {
    super('Config', message);
  }
}

export interface HostPaths {
  /** Default /sys/fs/cgroup. */
  cgroupRoot: string;
  /** Default /proc/swaps. */
  swaps: string;
  /** Default /proc/self/limits. */
  limits: string;
  /** Default /proc/sys (--protect-kernel-defaults). */
  procSys?: string;
  /** Default /proc/self/oom_score_adj (--oom-score-adj). */
  oomScoreAdj?: string;
}

export const DEFAULT_HOST_PATHS: HostPaths = {
  cgroupRoot: '/sys/fs/cgroup',
  swaps: '/proc/swaps',
  limits: '/proc/self/limits',
};

export type CgroupVersion = 'v1' | 'v2' | 'unknown';

export async function detectCgroupVersion(root: string): Promise<CgroupVersion> {
  try {
    const st = await statfs(root);
    return st.type === CGROUP2_SUPER_MAGIC ? 'v2' : 'v1';
  } catch {
    return 'unknown';
  }
}

/** Active swap devices listed in /proc/swaps (the header line skipped). */
export async function activeSwaps(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return []; // no /proc/swaps: no swap support in this kernel
  }
  return text
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

export interface OpenFilesLimit {
  soft: number;
  hard: number;
}

export async function readOpenFilesLimit(path: string): Promise<OpenFilesLimit | undefined> {
  try {
    const text = await readFile(path, 'utf8');
    const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
    if (m === null) return undefined;
    const n = (s: string | undefined) => (s === 'unlimited' ? Number.POSITIVE_INFINITY : Number(s));
    return { soft: n(m[1]), hard: n(m[2]) };
  } catch {
    return undefined;
  }
}

function prlimit(args: string[]): Promise<{ ok: boolean; message: string }> {
  return new Promise((resolve) => {
    execFile('prlimit', args, { timeout: 5000 }, (err, _stdout, stderr) => {
      if (err === null) resolve({ ok: true, message: '' });
      else resolve({ ok: false, message: (stderr.trim() || err.message).split('\n')[0] ?? '' });
    });
  });
}

/**
 * Raises the soft (and, when allowed, the hard) RLIMIT_NOFILE of this process to `want`. Node has
 * no setrlimit, so this uses prlimit(1) from util-linux on our own pid; without it, it warns.
 */
export async function raiseOpenFilesLimit(
  want: number,
  limitsPath: string,
  logger: Logger,
): Promise<void> {
  const before = await readOpenFilesLimit(limitsPath);
  if (before !== undefined && before.soft >= want) return;
  const pid = String(process.pid);
  let r = await prlimit(['--pid', pid, `--nofile=${want}:${want}`]);
  if (!r.ok && before !== undefined && before.hard > before.soft) {
    // Not allowed to raise the hard limit: take the soft limit as far as the hard one goes.
    const soft = Math.min(want, before.hard);
    r = await prlimit(['--pid', pid, `--nofile=${soft}:`]);
  }
  const after = await readOpenFilesLimit(limitsPath);
  if (!r.ok && (after === undefined || after.soft === before?.soft)) {
    logger.warn(
      { want, soft: before?.soft, hard: before?.hard, reason: r.message },
      'Could not raise the open-files limit (maxOpenFiles, --max-open-files): run as ' +
        'root with CAP_SYS_RESOURCE, install prlimit (util-linux), or raise LimitNOFILE in the ' +
        'systemd unit',
    );
    return;
  }
  if (after !== undefined && after.soft < want) {
    logger.warn(
      { want, soft: after.soft, hard: after.hard },
      'Raised the open-files limit only as far as the hard limit allows (maxOpenFiles, ' +
        '--max-open-files)',
    );
  } else {
    logger.info({ soft: after?.soft ?? want }, 'Raised the open-files limit');
  }
}

export interface HostCheckOptions {
  config: NodeAgentConfiguration;
  flags: NodeAgentFlags;
  logger: Logger;
  signal: AbortSignal;
  /** Called when another process contends for the lock file (--exit-on-lock-contention). */
  onLockContention?: () => void;
  paths?: HostPaths;
}

export interface HostCheckResult {
  lock: HeldLock | undefined;
  cgroupVersion: CgroupVersion;
  /** Releases what the checks hold (the lock file). */
  readonly release: () => Promise<void>;
}

/**
 * --lock-file: taken first, before anything else runs (the reference takes it before bootstrap).
 */
export async function acquireHostLock(opts: HostCheckOptions): Promise<HeldLock | undefined> {
  const { flags } = opts;
  if (flags.lockFile === '') return undefined;
  const lockOpts = {
    path: flags.lockFile,
    logger: opts.logger.child({ component: 'hostcheck' }),
    signal: opts.signal,
  };
  try {
    return await acquireLock(
      flags.exitOnLockContention && opts.onLockContention !== undefined
        ? { ...lockOpts, onContention: opts.onLockContention }
        : lockOpts,
    );
  } catch (err) {
    throw new HostCheckError(err instanceof Error ? err.message : String(err));
  }
}

/** The cgroup version and what it refuses or warns about. */
async function checkCgroups(
  config: NodeAgentConfiguration,
  paths: HostPaths,
  log: Logger,
): Promise<CgroupVersion> {
  const cgroupVersion = await detectCgroupVersion(paths.cgroupRoot);
  if (cgroupVersion === 'v1' && config.failCgroupV1) {
    throw new HostCheckError(
      `this host uses cgroup v1 (${paths.cgroupRoot} is not a cgroup2 file system) and ` +
        `failCgroupV1 (--fail-cgroupv1) is true: move the host to cgroup v2, or set ` +
        `--fail-cgroupv1=false to start anyway`,
    );
  }
  if (cgroupVersion === 'v1' && config.singleProcessOOMKill === false) {
    // the reference's validateKubeletOSConfiguration (validation_linux.go)
    throw new HostCheckError(
      'invalid configuration: singleProcessOOMKill must not be explicitly set to false ' +
        'when using cgroup v1',
    );
  }
  if (cgroupVersion === 'v2' && config.singleProcessOOMKill !== true) {
    log.warn(
      { field: 'singleProcessOOMKill' },
      'singleProcessOOMKill cannot take effect on this host: the Docker engine API sets ' +
        'no memory.oom.group; an out-of-memory container loses the one process the kernel ' +
        'picks, not the whole group as the reference does on cgroup v2',
    );
  }
  if (cgroupVersion === 'v1')
    log.warn(
      { cgroupRoot: paths.cgroupRoot },
      'This host uses cgroup v1, which is deprecated; move it to cgroup v2',
    );
  if (cgroupVersion === 'unknown')
    log.warn({ cgroupRoot: paths.cgroupRoot }, 'Could not tell the cgroup version of this host');
  return cgroupVersion;
}

/**
 * The checks of the host itself, after the lock: cgroups, swap, the open-files limit, the kernel
 * defaults and oom_score_adj. The reference makes them after bootstrap (the container manager,
 * then RunKubelet's rlimit); so does the agent (once its client certificate is settled), and its
 * parts load only once they passed. Throws HostCheckError (one line) when the host is refused.
 */
export async function checkHostSettings(
  opts: Omit<HostCheckOptions, 'signal' | 'onLockContention'>,
): Promise<CgroupVersion> {
  const { config } = opts;
  const paths = opts.paths ?? DEFAULT_HOST_PATHS;
  const log = opts.logger.child({ component: 'hostcheck' });
  const cgroupVersion = await checkCgroups(config, paths, log);
  if (config.failSwapOn) {
    const swaps = await activeSwaps(paths.swaps);
    if (swaps.length > 0) {
      throw new HostCheckError(
        `running with swap on is not supported, please disable swap or set failSwapOn ` +
          `(--fail-swap-on) to false. ${paths.swaps} contained: [${swaps.join(' ')}]`,
      );
    }
  }
  await raiseOpenFilesLimit(config.maxOpenFiles, paths.limits, log);
  try {
    await enforceKernelDefaults(config.protectKernelDefaults, paths.procSys ?? '/proc/sys', log);
  } catch (err) {
    throw new HostCheckError(err instanceof Error ? err.message : String(err));
  }
  await applySelfOomScoreAdj(config.oomScoreAdj, paths.oomScoreAdj ?? SELF_OOM_SCORE_ADJ, log);
  return cgroupVersion;
}

/**
 * Runs every host check in order (the lock, then the host's settings); throws HostCheckError when
 * the host is refused.
 */
export async function runHostChecks(opts: HostCheckOptions): Promise<HostCheckResult> {
  const lock = await acquireHostLock(opts);
  try {
    const cgroupVersion = await checkHostSettings(opts);
    return {
      lock,
      cgroupVersion,
      release: async () => {
        await lock?.release();
      },
    };
  } catch (err) {
    await lock?.release();
    throw err;
  }
}
