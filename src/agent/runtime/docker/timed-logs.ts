// A Docker container's log with the engine's own time for each line (the logs API with
// timestamps=true prefixes every line with its RFC 3339 nanosecond time and a space), as the
// reference's kubelet reads the CRI log: the tail first, then the lines before `sinceMs` dropped.
import type { TimedLogLine } from '../types.js';

const STAMPED = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)) ([\s\S]*)$/;

/**
 * Splits demultiplexed `timestamps=true` output into lines; a line without a time keeps the
 * previous line's.
 */
export function parseTimedLog(text: string): TimedLogLine[] {
  const out: TimedLogLine[] = [];
  let last = '';
  for (const line of text.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
    const m = STAMPED.exec(line);
    const time = m?.[1];
    const text = m?.[2];
    if (time !== undefined && text !== undefined) {
      last = time;
      out.push({ time, text });
    } else if (last !== '') out.push({ time: last, text: line });
  }
  return out;
}
