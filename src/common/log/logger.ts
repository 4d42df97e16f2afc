// The logger factory: pino underneath, rendered in the `text` format (one readable line per
// record). Verbosity follows the reference's -v: 0-3 info, 4-5 adds debug, 6+ adds trace; a
// record carrying a numeric `v` field (klog's V(n)) is written only when the logger's verbosity is
// at least n. --vmodule patterns set the verbosity of child loggers whose `component` matches.
// With split streams (LoggingAlphaOptions) info goes to stdout, buffered up to infoBufferSize
// bytes, and warnings and errors to stderr; otherwise everything goes to stderr. Buffers are
// flushed at least every --log-flush-frequency.
import pino from 'pino';
import type { LogFn, Logger } from './types.js';
import { renderTextLine } from './text-format.js';
import { maskUrlUserinfo } from '../util/url-userinfo.js';
import { everyMs, systemClock, type Clock } from '../util/clock.js';
import { vmoduleVerbosity, type VModuleItem } from './vmodule.js';

export interface LogSink {
  write(chunk: string): unknown;
  flush?(): void;
  flushSync?(): void;
}

export interface LoggerOptions {
  verbosity?: number;
  vmodule?: readonly VModuleItem[];
  flushFrequencyMs?: number;
  /** Drives the periodic flush (default the system clock: the logger exists before any other part). */
  clock?: Clock;
  splitStream?: boolean;
  /** Bytes of info output buffered before a write (split stream only); 0 = no buffering. */
  infoBufferSize?: number;
  /** Where output goes; default: file descriptors 1 and 2 (tests pass recording sinks). */
  stdout?: LogSink;
  stderr?: LogSink;
  /** Component of the root logger (children set their own). */
  component?: string;
}

export interface LoggerHandle {
  readonly logger: Logger;
  /** Writes out buffered output now. */
  flush(): void;
  /** Stops the flush timer and writes out everything buffered. */
  close(): void;
}

export function levelFor(verbosity: number): 'info' | 'debug' | 'trace' {
  return verbosity >= 6 ? 'trace' : verbosity >= 4 ? 'debug' : 'info';
}

type PinoLogger = pino.Logger;

class TextLogger implements Logger {
  readonly #p: PinoLogger;
  readonly #verbosity: number;
  readonly #vmodule: readonly VModuleItem[];

  constructor(p: PinoLogger, verbosity: number, vmodule: readonly VModuleItem[]) {
    this.#p = p;
    this.#verbosity = verbosity;
    this.#vmodule = vmodule;
  }

  #method(level: 'error' | 'warn' | 'info' | 'debug' | 'trace'): LogFn {
    return (a: string | Record<string, unknown>, msg?: string): void => {
      if (typeof a === 'string') {
        this.#p[level](a);
        return;
      }
      const v = a['v'];
      if (typeof v === 'number' && v > this.#verbosity) return;
      if (msg === undefined) this.#p[level](a);
      else this.#p[level](a, msg);
    };
  }

  readonly error = this.#method('error');
  readonly warn = this.#method('warn');
  readonly info = this.#method('info');
  readonly debug = this.#method('debug');
  readonly trace = this.#method('trace');

  child(bindings: Record<string, unknown>): Logger {
    // Our parts name themselves with `component` (some with `part`): vmodule matches either.
    const component = bindings['component'] ?? bindings['part'];
    const override = typeof component === 'string' ? vmoduleVerbosity(this.#vmodule, component) : undefined;
    const verbosity = override ?? this.#verbosity;
    const child = this.#p.child(bindings, { level: levelFor(verbosity) });
    return new TextLogger(child, verbosity, this.#vmodule);
  }
}

function fdSink(fd: 1 | 2, minLength: number): LogSink {
  const sink = pino.destination({ dest: fd, sync: false, minLength });
  // A closed pipe (the reader went away) must not crash the agent: logs are best effort.
  sink.on('error', () => undefined);
  return sink;
}

/** pino's JSON records as text lines: warnings and errors to stderr, the rest to stdout. */
function textDestination(stdout: LogSink, stderr: LogSink): { write(raw: string): void } {
  return {
    write(raw: string): void {
      // no log line shows a URL's userinfo, whichever part logged it
      const line = maskUrlUserinfo(raw);
      let rec: Record<string, unknown>;
      try {
        rec = JSON.parse(line) as Record<string, unknown>;
      } catch {
        stderr.write(line);
        return;
      }
      const level = typeof rec['level'] === 'number' ? rec['level'] : 30;
      (level >= 40 ? stderr : stdout).write(renderTextLine(rec));
    },
  };
}

/** `flush` empties every sink now (synchronously where it can); `periodic` is the best-effort tick. */
function flushers(sinks: readonly LogSink[]): { flush: () => void; periodic: () => void } {
  return {
    flush: () => {
      for (const s of sinks) {
        try {
          if (s.flushSync) s.flushSync();
          else s.flush?.();
        } catch {
          // a sink not ready yet (async open) has nothing buffered to lose
        }
      }
    },
    periodic: () => {
      for (const s of sinks) {
        try {
          s.flush?.();
        } catch {
          // best effort; the next tick or close() tries again
        }
      }
    },
  };
}

export function createLogger(opts: LoggerOptions = {}): LoggerHandle {
  const verbosity = opts.verbosity ?? 0;
  const vmodule = opts.vmodule ?? [];
  const split = opts.splitStream === true;
  const stderr = opts.stderr ?? fdSink(2, 0);
  const stdout = split ? (opts.stdout ?? fdSink(1, Math.max(0, Math.floor(opts.infoBufferSize ?? 0)))) : stderr;
  // The least verbose level any logger may need: vmodule can raise a child above the root.
  const maxV = Math.max(verbosity, ...vmodule.map((m) => m.verbosity));
  const root = pino(
    {
      level: levelFor(maxV),
      base: opts.component === undefined ? null : { component: opts.component },
      timestamp: pino.stdTimeFunctions.epochTime,
    },
    textDestination(stdout, stderr),
  ) as PinoLogger;
  root.level = levelFor(verbosity);
  const { flush, periodic } = flushers(split ? [stdout, stderr] : [stderr]);
  const stopFlushing = everyMs(opts.clock ?? systemClock, Math.max(1, opts.flushFrequencyMs ?? 5000), periodic, { unref: true });
  return {
    logger: new TextLogger(root, verbosity, vmodule),
    flush,
    close(): void {
      stopFlushing();
      flush();
    },
  };
}
