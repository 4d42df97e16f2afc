// Go's time.ParseDuration and Duration.String(), the syntax of every duration flag and config
// field ("300ms", "1.5h", "1h2m3.5s", "-2m"). Arithmetic is in BigInt nanoseconds so the full
// int64 range round-trips exactly.
import { invalidValue, quote } from './error.js';

const NS = 1n;
const US = 1000n * NS;
const MS = 1000n * US;
const SEC = 1000n * MS;
const MIN = 60n * SEC;
const HOUR = 60n * MIN;

/** A Map, not an object: a unit such as "toString" must not find Object.prototype's. */
const UNITS: ReadonlyMap<string, bigint> = new Map([
  ['ns', NS],
  ['us', US],
  ['µs', US], // U+00B5 micro sign
  ['μs', US], // U+03BC Greek mu
  ['ms', MS],
  ['s', SEC],
  ['m', MIN],
  ['h', HOUR],
]);

const INT64_MAX = 9223372036854775807n;

export const DURATION_ACCEPTED =
  'a Go duration such as 300ms, 1.5h, 2m0s or 1h2m3.5s (units ns, us, µs, ms, s, m, h)';

/** Parses a Go duration into nanoseconds; throws FlagError naming `flag` otherwise. */
export function parseDurationNs(input: string, flag?: string): bigint {
  const fail = (reason: string): never => {
    throw invalidValue(input, flag, reason, DURATION_ACCEPTED);
  };
  const invalid = `time: invalid duration ${quote(input)}`;
  let s = input;
  let neg = false;
  if (s !== '' && (s.startsWith('-') || s.startsWith('+'))) {
    neg = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') fail(invalid);
  let total = 0n;
  while (s !== '') {
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(s);
    const whole = m?.[1] ?? '';
    const frac = m?.[2];
    if (whole === '' && (frac === undefined || frac === '')) fail(invalid);
    s = s.slice(m?.[0].length ?? 0);
    const unitMatch = /^[^0-9.]*/.exec(s);
    const unit = unitMatch?.[0] ?? '';
    if (unit === '') fail(`time: missing unit in duration ${quote(input)}`);
    s = s.slice(unit.length);
    const scale = UNITS.get(unit);
    if (scale === undefined)
      return fail(`time: unknown unit ${quote(unit)} in duration ${quote(input)}`);
    let v = whole === '' ? 0n : BigInt(whole) * scale;
    if (frac !== undefined && frac !== '') v += (BigInt(frac) * scale) / 10n ** BigInt(frac.length);
    total += v;
    if (total > INT64_MAX + (neg ? 1n : 0n)) fail(invalid);
  }
  return neg ? -total : total;
}

/** Parses a Go duration into milliseconds (fractional below 1 ms). */
export function parseDurationMs(s: string, flag?: string): number {
  return Number(parseDurationNs(s, flag)) / 1e6;
}

/**
 * Milliseconds of a Go duration, or undefined when `text` is not one (for code that collects every
 * problem).
 */
export function tryDurationMs(text: string): number | undefined {
  try {
    return parseDurationMs(text);
  } catch {
    return undefined;
  }
}

/** Parses a Go duration and returns it normalized the way the config file stores it ("2m0s"). */
export function normalizeDuration(s: string, flag?: string): string {
  return formatDurationNs(parseDurationNs(s, flag));
}

/**
 * Go's fmtFrac: the fraction of v / 10^prec without trailing zeros; returns [text, v / 10^prec].
 */
function fmtFrac(v: bigint, prec: number): [string, bigint] {
  let digits = '';
  let printed = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    printed = printed || digit !== 0n;
    if (printed) digits = digit.toString() + digits;
    v /= 10n;
  }
  return [printed ? `.${digits}` : '', v];
}

/** Go's Duration.String() for a nanosecond count: "0s", "300ms", "1.5s", "2m0s", "4h0m0s". */
export function formatDurationNs(ns: bigint): string {
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;
  if (u < SEC) {
    if (u === 0n) return '0s';
    let prec: number;
    let unit: string;
    if (u < US) {
      prec = 0;
      unit = 'ns';
    } else if (u < MS) {
      prec = 3;
      unit = 'µs';
    } else {
      prec = 6;
      unit = 'ms';
    }
    const [frac, rest] = fmtFrac(u, prec);
    out = `${rest}${frac}${unit}`;
  } else {
    const [frac, secs] = fmtFrac(u, 9);
    u = secs;
    out = `${u % 60n}${frac}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

/** Go's Duration.String() for a millisecond count (fractions resolve to whole nanoseconds). */
export function formatDuration(ms: number): string {
  return formatDurationNs(BigInt(Math.round(ms * 1e6)));
}
