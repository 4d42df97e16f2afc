// The logger factory: pino underneath, rendered in the `text` format (one readable line per
// record). Verbosity follows the reference's -v: 0-3 info, 4-5 adds debug, 6+ adds trace; a
// record carrying a numeric `v` field (klog's V(n)) is written only when the logger's verbosity is
// at least n. --vmodule patterns set the verbosity of child loggers whose `component` matches.
// With split streams (LoggingAlphaOptions) info goes to stdout, buffered up to infoBufferSize
// bytes, and warnings and errors to stderr; otherwise everything goes to stderr. Buffers are
// flushed at least every --log-flush-frequency.
import pino from 'pino';
import sonicBoom from 'sonic-boom';
import type { LogFn, Logger } from './types.js';
import { renderTextLine } from './text-format.js';
import { maskUrlUserinfo } from '../util/url-userinfo.js';
import { everyMs, systemClock, type Clock } from '../util/clock.js';
import { vmoduleVerbosity, type VModuleItem } from './vmodule.js';
import { isRecord } from '../util/json-shape.js';

export interface LogSink {
  write(chunk: string): unknown;
  flush?(): void;
  flushSync?(): void;
}

export interface LoggerOptions {
  verbosity?: number;
  vmodule?: readonly VModuleItem[];
  flushFrequencyMs?: number;
  /**
   * Drives the periodic flush (default the system clock: the logger exists before any other part).
   */
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

const LEVEL_RANK = { trace: 0, debug: 1, info: 2, warn: 3, error: 4 } as const;

/** The tree's verbosity, shared by the root and every child, changed by setVerbosity. */
interface VerbosityState {
  verbosity: number;
}

class TextLogger implements Logger {
  readonly #p: PinoLogger;
  readonly #state: VerbosityState;
  /** A --vmodule verbosity for this logger, over the tree's. */
  readonly #override: number | undefined;
  readonly #vmodule: readonly VModuleItem[];

  constructor(
    p: PinoLogger,
    state: VerbosityState,
    override: number | undefined,
    vmodule: readonly VModuleItem[],
  ) {
    this.#p = p;
    this.#state = state;
    this.#override = override;
    this.#vmodule = vmodule;
  }

  get #verbosity(): number {
    return this.#override ?? this.#state.verbosity;
  }

  #method(level: 'error' | 'warn' | 'info' | 'debug' | 'trace'): LogFn {
    return (a: string | Record<string, unknown>, msg?: string): void => {
      // pino writes every level; the verbosity in force decides here, so it can change at run time.
      if (LEVEL_RANK[level] < LEVEL_RANK[levelFor(this.#verbosity)]) return;
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
    const override =
      typeof component === 'string' ? vmoduleVerbosity(this.#vmodule, component) : undefined;
    return new TextLogger(
      this.#p.child(bindings),
      this.#state,
      override ?? this.#override,
      this.#vmodule,
    );
  }

  setVerbosity(verbosity: number): void {
    this.#state.verbosity = verbosity;
  }
}

function fdSink(fd: 1 | 2, minLength: number): LogSink {
  // sonic-boom 5, not pino's own 4.x destination: its flushSync retried a broken pipe (EPIPE) for
  // ever, so a stop whose log reader had gone away hung; 5 throws it, which flush() swallows
  const sink = new sonicBoom.SonicBoom({ fd, sync: false, minLength });
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
      let rec: unknown;
      try {
        rec = JSON.parse(line);
      } catch {
        rec = undefined;
      }
      if (!isRecord(rec)) {
        stderr.write(line);
        return;
      }
      const level = typeof rec['level'] === 'number' ? rec['level'] : 30;
      (level >= 40 ? stderr : stdout).write(renderTextLine(rec));
    },
  };
}

/**
 * `flush` empties every sink now (synchronously where it can); `periodic` is the best-effort tick.
 */
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
  const stdout = split
    ? (opts.stdout ?? fdSink(1, Math.max(0, Math.floor(opts.infoBufferSize ?? 0))))
    : stderr;
  // Every level reaches pino; TextLogger filters by the verbosity in force (it may change).
  const root = pino(
    {
      level: 'trace',
      base: opts.component === undefined ? null : { component: opts.component },
      timestamp: pino.stdTimeFunctions.epochTime,
    },
    textDestination(stdout, stderr),
  );
  const { flush, periodic } = flushers(split ? [stdout, stderr] : [stderr]);
  const stopFlushing = everyMs(
    opts.clock ?? systemClock,
    Math.max(1, opts.flushFrequencyMs ?? 5000),
    periodic,
    { unref: true },
  );
  return {
    logger: new TextLogger(root, { verbosity }, undefined, vmodule),
    flush,
    close(): void {
      stopFlushing();
      flush();
    },
  };
}
