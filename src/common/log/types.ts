// The logger every part takes in its options. It is a subset of pino's interface, so a pino
// logger (or a child of one) satisfies it, and tests can pass a recording logger.
export interface LogFn {
  (msg: string): void;
  (obj: Record<string, unknown>, msg?: string): void;
}

export interface Logger {
  error: LogFn;
  warn: LogFn;
  info: LogFn;
  debug: LogFn;
  trace: LogFn;
  child(bindings: Record<string, unknown>): Logger;
  /**
   * Sets the -v verbosity of the whole logger tree at run time (the reference's klog verbosity is
   * process-wide: /debug/flags/v); loggers a --vmodule pattern matches keep theirs.
   */
  setVerbosity?(verbosity: number): void;
}

/** A logger that drops everything; for tests and for parts built before logging is set up. */
export function silentLogger(): Logger {
  const noop: LogFn = () => undefined;
  const l: Logger = {
    error: noop,
    warn: noop,
    info: noop,
    debug: noop,
    trace: noop,
    child: () => l,
  };
  return l;
}
