// Lines of a container's log with the runtime's time for each: the since filter of
// /containerLogs (sinceSeconds, sinceTime), as the reference's ReadLogs (a line at `since` is kept).
import type { TimedLogLine } from './types.js';

/** The lines at or after `sinceMs` (all when undefined). */
export function linesSince(lines: readonly TimedLogLine[], sinceMs: number | undefined): TimedLogLine[] {
  if (sinceMs === undefined) return [...lines];
  return lines.filter((l) => Date.parse(l.time) >= sinceMs);
}
