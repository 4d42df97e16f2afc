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
 * Where `last` (the last line read before) is in `now`: searched back from where it was, since
 * a rotation may have dropped older lines from the front; a line still without its newline may
 * have grown. -1 when it is gone.
 */
function anchorOf(last: TimedLogLine, now: readonly TimedLogLine[], was: number): number {
  for (let i = Math.min(was, now.length - 1); i >= 0; i--) {
    const l = now[i];
    // a partial line's time is that of its end, which moves as it grows
    const sameTime = l?.time === last.time || !last.text.endsWith('\n');
    if (l !== undefined && sameTime && l.text.startsWith(last.text)) return i;
  }
  return -1;
}

/**
 * The lines of `now` past those of `before` (the same log read again later, for follow): a last
 * line of `before` without its newline yet (a process:// container's partial line) that has grown
 * gives what was added to it. The log may have been rotated in between (older files removed, the
 * read window moved): the lines are matched by the last one read, not by count.
 */
export function linesAfter(
  before: readonly TimedLogLine[],
  now: readonly TimedLogLine[],
): TimedLogLine[] {
  const last = before.at(-1);
  if (last === undefined) return [...now];
  const at = anchorOf(last, now, before.length - 1);
  if (at < 0) return [...now];
  const fresh = now.slice(at + 1);
  const grown = now[at];
  if (grown !== undefined && !last.text.endsWith('\n') && grown.text.length > last.text.length)
    fresh.unshift({ time: grown.time, text: grown.text.slice(last.text.length) });
  return fresh;
}
