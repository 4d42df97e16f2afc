// What the file-only fields give the parts that act on them: the restart
// back-off cap (crashLoopBackOff), image GC by age (imageMaximumGCAge), the log rotation loop
// (containerLogMonitorInterval, containerLogMaxWorkers) and the pull concurrency
// (maxParallelImagePulls). Durations were validated before; these only convert.
import { tryDurationMs } from './values.js';
import type { NodeAgentConfiguration } from './schema.js';

/** The reference's container restart back-off: 10 s doubling to 300 s. */
export const RESTART_BACKOFF_INITIAL_MS = 10_000;
export const RESTART_BACKOFF_MAX_MS = 300_000;

export interface FileFieldSettings {
  restartBackoff: { initialMs: number; maxMs: number };
  imageMaxAgeMs: number;
  logRotateIntervalMs: number;
  logRotateWorkers: number;
  /** undefined: no limit beyond serializeImagePulls. */
  maxParallelImagePulls?: number;
}

export function fileFieldSettings(c: NodeAgentConfiguration): FileFieldSettings {
  const cap = c.crashLoopBackOff.maxContainerRestartPeriod;
  const maxMs =
    cap === null ? RESTART_BACKOFF_MAX_MS : (tryDurationMs(cap) ?? RESTART_BACKOFF_MAX_MS);
  return {
    // as the reference under KubeletCrashLoopBackOffMax: a cap below 10 s lowers the first delay
    // too
    restartBackoff: { initialMs: Math.min(RESTART_BACKOFF_INITIAL_MS, maxMs), maxMs },
    imageMaxAgeMs: tryDurationMs(c.imageMaximumGCAge) ?? 0,
    logRotateIntervalMs: tryDurationMs(c.containerLogMonitorInterval) ?? 10_000,
    logRotateWorkers: Math.max(1, c.containerLogMaxWorkers),
    ...(c.maxParallelImagePulls !== null && !c.serializeImagePulls
      ? { maxParallelImagePulls: c.maxParallelImagePulls }
      : {}),
  };
}
