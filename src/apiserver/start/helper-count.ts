// How many helpers --tls-processes or --worker-threads asks for: the count given, or for -1 one
// per CPU beyond the first (the main thread keeps one), at most 8.

/** The automatic count's ceiling: past it the main thread, not its helpers, is the limit. */
export const AUTO_HELPERS_MAX = 8;

export function helperCount(flag: number, cpus: number): number {
  if (flag >= 0) return flag;
  return Math.min(AUTO_HELPERS_MAX, Math.max(0, cpus - 1));
}
