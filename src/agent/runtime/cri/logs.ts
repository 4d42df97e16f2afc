// containerLogs on a CRI runtime: the container's log file (ContainerStatus.log_path, the runtime
// writes it in the CRI log format) read and parsed; the tail and since as the reference's ReadLogs
// apply them (tail first, then since).
import { linesSince } from '../log-lines.js';
import type { TimedLogLine } from '../types.js';
import type { CriClient } from './client.js';
import { parseCriLog, readCriLogFile } from './cri-log.js';
import { RuntimeError } from '../../../common/util/errors.js';

export class CriLogs {
  private readonly paths = new Map<string, string>();

  constructor(private readonly client: CriClient) {}

  forget(id: string): void {
    this.paths.delete(id);
  }

  async pathOf(id: string): Promise<string> {
    const known = this.paths.get(id);
    if (known !== undefined) return known;
    const r = await this.client.call('RuntimeService/ContainerStatus', { container_id: id });
    const path = r.status?.log_path ?? '';
    if (!path.startsWith('/'))
      throw new RuntimeError(`the runtime keeps no log file for container ${id.slice(0, 12)}`);
    this.paths.set(id, path);
    return path;
  }

  async lines(id: string, tailLines?: number, sinceMs?: number): Promise<TimedLogLine[]> {
    const path = await this.pathOf(id);
    const text = await readCriLogFile(path).catch((err: unknown) => {
      if (err instanceof Error && 'code' in err && err.code === 'ENOENT') return '';
      throw err;
    });
    let lines: TimedLogLine[] = parseCriLog(text).map((l) => ({ time: l.time, text: l.text }));
    if (tailLines !== undefined) lines = tailLines <= 0 ? [] : lines.slice(-tailLines);
    return linesSince(lines, sinceMs);
  }
}
