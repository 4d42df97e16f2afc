// The last graceful shutdown's start and end, as the reference keeps them
// (pkg/kubelet/nodeshutdown/storage.go): <root-dir>/graceful_node_shutdown_state, JSON with Go's
// time encoding ({"startTime":"…","endTime":"…"}, 0001-01-01T00:00:00Z for none), written
// atomically; read back at start for the graceful_shutdown_*_time_seconds gauges.
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../../common/util/atomic-file.js';
import { joinUnder } from '../../../common/util/safe-path.js';
import { userMessage } from '../../../common/util/errors.js';
import { isRecord } from '../../../common/util/json-shape.js';

export const STATE_FILE = 'graceful_node_shutdown_state';
const GO_ZERO_TIME = '0001-01-01T00:00:00Z';
const MAX_STATE_BYTES = 4096;

/** Times in ms since the epoch; undefined is Go's zero time. */
export interface ShutdownTimes {
  startMs?: number | undefined;
  endMs?: number | undefined;
}

/** Go's RFC3339Nano in UTC: fractional seconds without trailing zeros. */
export function goTimeJson(ms: number | undefined): string {
  if (ms === undefined) return GO_ZERO_TIME;
  return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}

function parseGoTime(v: unknown): number | undefined {
  if (typeof v !== 'string' || v === GO_ZERO_TIME) return undefined;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : undefined;
}

export class ShutdownStateFile {
  private readonly path: string;

  constructor(rootDir: string) {
    this.path = joinUnder(rootDir, STATE_FILE);
  }

  async store(t: ShutdownTimes): Promise<void> {
    await writeFileAtomic(
      this.path,
      JSON.stringify({ startTime: goTimeJson(t.startMs), endTime: goTimeJson(t.endMs) }),
      { mode: 0o644 },
    );
  }

  /** The stored times; none when there is no file. A file that is not the state is an error. */
  async load(): Promise<ShutdownTimes> {
    const text = await readFile(this.path, 'utf8').catch((err: unknown) => {
      if (err instanceof Error && 'code' in err && err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (text === undefined) return {};
    if (text.length > MAX_STATE_BYTES)
      throw new Error(
        `${this.path} is larger than ${MAX_STATE_BYTES} bytes: not a graceful shutdown state`,
      );
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (err) {
      throw new Error(`${this.path} is not JSON: ${userMessage(err)}`, { cause: err });
    }
    if (!isRecord(v)) throw new Error(`${this.path} does not hold a JSON object`);
    return { startMs: parseGoTime(v['startTime']), endMs: parseGoTime(v['endTime']) };
  }
}
