// How many TLS front processes --tls-processes asks for: the count given, or for -1 one per CPU
// beyond the first (the main process keeps one), at most 8.

/** The automatic count's ceiling: past it the main process, not TLS, is the limit. */
export const AUTO_FRONTS_MAX = 8;

export function frontCount(flag: number, cpus: number): number {
  if (flag >= 0) return flag;
  return Math.min(AUTO_FRONTS_MAX, Math.max(0, cpus - 1));
}
