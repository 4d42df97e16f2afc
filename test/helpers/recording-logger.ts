// A Logger that keeps every line (level, message, fields) for assertions.
import type { Logger, LogFn } from '../../src/common/log/types.js';

export interface LogLine {
  level: 'error' | 'warn' | 'info' | 'debug' | 'trace';
  msg: string;
  fields: Record<string, unknown>;
}

export function recordingLogger(
  lines: LogLine[] = [],
  bindings: Record<string, unknown> = {},
): Logger & { lines: LogLine[] } {
  const fn = (level: LogLine['level']): LogFn =>
    ((a: string | Record<string, unknown>, b?: string) => {
      if (typeof a === 'string') lines.push({ level, msg: a, fields: { ...bindings } });
      else lines.push({ level, msg: b ?? '', fields: { ...bindings, ...a } });
    }) as LogFn;
  return {
    lines,
    error: fn('error'),
    warn: fn('warn'),
    info: fn('info'),
    debug: fn('debug'),
    trace: fn('trace'),
    child: (b) => recordingLogger(lines, { ...bindings, ...b }),
  };
}
