// Lines of a container's log with the runtime's time for each: the since filter of
// /containerLogs (sinceSeconds, sinceTime), as the reference's ReadLogs (a line at `since` is
// kept).
import type { TimedLogLine } from './types.js';

/** The lines at or after `sinceMs` (all when undefined). */
export function linesSince(
  lines: readonly TimedLogLine[],
  sinceMs: number | undefined,
): TimedLogLine[] {
  if (sinceMs === undefined) return [...lines];
  return lines.filter((l) => Date.parse(l.time) >= sinceMs);
}

/**
 * The lines of `now` past those of `before` (the same log read again later, for follow): a last
 * line of `before` without its newline yet (a process:// container's partial line) that has grown
 * gives what was added to it.
 */
export function linesAfter(
  before: readonly TimedLogLine[],
  now: readonly TimedLogLine[],
): TimedLogLine[] {
  const fresh = now.slice(before.length);
  const last = before.at(-1);
  const grown = now[before.length - 1];
  if (
    last !== undefined &&
    grown !== undefined &&
    !last.text.endsWith('\n') &&
    grown.text.length > last.text.length
  ) {
    fresh.unshift({ time: grown.time, text: grown.text.slice(last.text.length) });
  }
  return fresh;
}
