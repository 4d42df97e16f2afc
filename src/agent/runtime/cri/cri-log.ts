// The CRI log format a CRI runtime writes for each container (the reference's
// pkg/kubelet/kuberuntime/logs): one record per line, `<RFC3339Nano time> <stream> <tag> <text>`,
// stream `stdout` or `stderr`, tag `F` (the line is complete) or `P` (a partial line, continued by
// the next record of the same stream). Read back into the container's lines with their times.
import { open } from 'node:fs/promises';
import type { TimedLogLine } from '../types.js';

/** The most of a log file read for one request (the tail of a bigger file is read). */
export const MAX_LOG_READ_BYTES = 64 * 1024 * 1024;

const TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)/.source;
const RECORD = new RegExp(`^(${TIMESTAMP}) (stdout|stderr) ([PF])(?: (.*))?$`);

export interface CriLogLine extends TimedLogLine {
  readonly stream: 'stdout' | 'stderr';
}

/** Parses records into lines: partial records joined; a malformed record is skipped. */
export function parseCriLog(text: string): CriLogLine[] {
  const out: CriLogLine[] = [];
  const partial: Record<'stdout' | 'stderr', { time: string; text: string } | undefined> = {
    stdout: undefined,
    stderr: undefined,
  };
  const records = text.split('\n');
  // the text after the last newline is a record still being written: left for the next read
  if (records.length > 0) records.pop();
  for (const r of records) {
    const m = RECORD.exec(r);
    if (m === null) continue;
    const [, time = '', streamName, tag, body = ''] = m;
    const stream = streamName === 'stderr' ? 'stderr' : 'stdout';
    const before = partial[stream];
    const joined = (before?.text ?? '') + body;
    if (tag === 'P') {
      partial[stream] = { time: before?.time ?? time, text: joined };
      continue;
    }
    partial[stream] = undefined;
    out.push({ time: before?.time ?? time, text: `${joined}\n`, stream });
  }
  for (const stream of ['stdout', 'stderr'] as const) {
    const p = partial[stream];
    if (p !== undefined) out.push({ time: p.time, text: p.text, stream });
  }
  return out;
}

/** The file's text, its last `budget` bytes when bigger (from the first whole record). */
export async function readCriLogFile(path: string, budget = MAX_LOG_READ_BYTES): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const start = Math.max(0, size - budget);
    const buf = Buffer.alloc(size - start);
    const { bytesRead } = await fh.read(buf, 0, buf.length, start);
    let text = buf.subarray(0, bytesRead).toString('utf8');
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    return text;
  } finally {
    await fh.close();
  }
}

/** Milliseconds since the epoch of a record's time (sub-millisecond digits dropped). */
export function criLogTimeMs(time: string): number {
  return Date.parse(time.replace(/(\.\d{3})\d+/, '$1'));
}
