// /debug/pprof/ on the secure server (with the debugging handlers), as the reference registers
// its profiling handlers when enableProfilingHandler is true: Node's own profiles through its
// inspector instead of Go's pprof. profile?seconds=N (default 30, at most 300) is a V8 CPU profile
// (.cpuprofile JSON), heap a V8 heap snapshot. With --contention-profiling, `block` answers the
// event loop's delay histogram: a Node process contends on its one loop, where the reference
// records goroutine blocking.
import { Session } from 'node:inspector/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { getHeapSnapshot } from 'node:v8';
import type { Clock } from '../../../common/util/clock.js';
import { httpError, sendJson } from './respond.js';

export interface ProfilingOptions {
  clock: Clock;
  /** --contention-profiling: the event loop delay histogram is recorded from start. */
  contention: boolean;
}

const MAX_SECONDS = 300;

export class ProfilingHandlers {
  private readonly loopDelay: IntervalHistogram | undefined;
  private cpuBusy = false;

  constructor(private readonly o: ProfilingOptions) {
    if (o.contention) {
      this.loopDelay = monitorEventLoopDelay({ resolution: 10 });
      this.loopDelay.enable();
    }
  }

  close(): void {
    this.loopDelay?.disable();
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL, path: string): Promise<void> {
    const name = path.replace(/^\/debug\/pprof\/?/, '');
    if (name === '') {
      sendJson(res, 200, {
        profiles: ['profile', 'heap', ...(this.loopDelay !== undefined ? ['block'] : [])],
      });
    } else if (name === 'profile') {
      await this.cpuProfile(req, res, url);
    } else if (name === 'heap') {
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-disposition': 'attachment; filename="nodeagent.heapsnapshot"',
      });
      getHeapSnapshot().pipe(res);
    } else if (name === 'block' && this.loopDelay !== undefined) {
      const h = this.loopDelay;
      sendJson(res, 200, {
        kind: 'EventLoopDelay',
        unit: 'ns',
        count: h.count,
        min: h.min,
        max: h.max,
        mean: h.mean,
        stddev: h.stddev,
        p50: h.percentile(50),
        p99: h.percentile(99),
      });
    } else {
      httpError(res, 404, `Unknown profile: ${name}`);
    }
  }

  private async cpuProfile(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const raw = url.searchParams.get('seconds') ?? '30';
    const seconds = /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
    if (!(seconds >= 1 && seconds <= MAX_SECONDS)) {
      httpError(
        res,
        400,
        `seconds must be a whole number between 1 and ${MAX_SECONDS}, got ` +
          JSON.stringify(raw.slice(0, 20)),
      );
      return;
    }
    if (this.cpuBusy) {
      httpError(res, 500, 'Could not enable CPU profiling: cpu profiling already in use');
      return;
    }
    this.cpuBusy = true;
    const session = new Session();
    const gone = new AbortController();
    req.once('close', () => gone.abort());
    try {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      await this.o.clock.sleep(seconds * 1000, gone.signal).catch(() => undefined);
      const { profile } = await session.post('Profiler.stop');
      if (!gone.signal.aborted) {
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-disposition': 'attachment; filename="nodeagent.cpuprofile"',
        });
        res.end(JSON.stringify(profile));
      }
    } finally {
      session.disconnect();
      this.cpuBusy = false;
    }
  }
}
