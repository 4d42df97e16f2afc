// metav1.Time and metav1.MicroTime as the reference reads and writes them. Reading is Go's
// time.Parse with the layout RFC3339 (Time) or RFC3339Micro (MicroTime), error texts included
// (`parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`);
// writing is the UTC form the reference stores and serves: Time at whole seconds, MicroTime at
// microseconds, the zero instant as null. Parsing works on the UTF-8 bytes (one char per byte)
// because Go indexes bytes and quotes every non-ASCII byte as \xNN.

export type TimeKind = 'Time' | 'MicroTime';

export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

export type TimeResult =
  | { readonly ok: true; readonly value: string | null }
  | { readonly ok: false; readonly message: string };

type Std = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'micro' | 'zone';
interface Chunk {
  readonly prefix: string;
  readonly std: Std;
  readonly text: string;
}

const common: Chunk[] = [
  { prefix: '', std: 'year', text: '2006' },
  { prefix: '-', std: 'month', text: '01' },
  { prefix: '-', std: 'day', text: '02' },
  { prefix: 'T', std: 'hour', text: '15' },
  { prefix: ':', std: 'minute', text: '04' },
  { prefix: ':', std: 'second', text: '05' },
];
const LAYOUTS: Readonly<Record<TimeKind, { text: string; chunks: readonly Chunk[] }>> = {
  Time: { text: RFC3339, chunks: [...common, { prefix: '', std: 'zone', text: 'Z07:00' }] },
  MicroTime: {
    text: RFC3339_MICRO,
    chunks: [
      ...common,
      { prefix: '', std: 'micro', text: '.000000' },
      { prefix: '', std: 'zone', text: 'Z07:00' },
    ],
  },
};

/** The time package's quote, over a byte string: bytes >= 0x80 and < 0x20 as \xNN. */
function quote(bytes: string): string {
  let out = '"';
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes.charCodeAt(i);
    if (c >= 0x80 || c < 0x20) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += c === 0x22 || c === 0x5c ? `\\${bytes[i] ?? ''}` : (bytes[i] ?? '');
  }
  return `${out}"`;
}

const isDigit = (s: string, i: number): boolean =>
  i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39;

/** Go's getnum: one or (when `fixed`) exactly two leading digits. */
function getnum(s: string, fixed: boolean): { n: number; rest: string } | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : { n: s.charCodeAt(0) - 0x30, rest: s.slice(1) };
  return { n: (s.charCodeAt(0) - 0x30) * 10 + (s.charCodeAt(1) - 0x30), rest: s.slice(2) };
}

/** Go's atoi: an optional sign and decimal digits, nothing else. */
function atoi(s: string): number | undefined {
  const m = /^([-+]?)([0-9]+)$/.exec(s);
  if (m === null) return undefined;
  const n = Number(m[2]);
  return m[1] === '-' ? -n : n;
}

/** Go's parseNanoseconds over `value[0:nbytes]` (a `.` or `,` and digits). */
function parseNanos(value: string, nbytes: number): { ns: number; range?: string } | undefined {
  if (!value.startsWith('.') && !value.startsWith(',')) return undefined;
  const n = Math.min(nbytes, 10);
  const ns = atoi(value.slice(1, n));
  if (ns === undefined) return undefined;
  if (ns < 0) return { ns: 0, range: 'fractional second' };
  return { ns: ns * 10 ** (10 - n) };
}

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanos: number;
  offsetSeconds: number;
}

type StepResult = { rest: string; range?: string } | undefined;

function parseZone(value: string, f: Fields): StepResult {
  if (value.startsWith('Z')) return { rest: value.slice(1) };
  if (value.length < 6 || value[3] !== ':') return undefined;
  const hr = getnum(value.slice(1, 3), true);
  const mm = hr === undefined ? undefined : getnum(value.slice(4, 6), true);
  // Go checks the ranges before the digits and the sign, and the minute's verdict wins.
  const range =
    (mm?.n ?? 0) > 60
      ? 'time zone offset minute'
      : (hr?.n ?? 0) > 24
        ? 'time zone offset hour'
        : undefined;
  if (range !== undefined) return { rest: value.slice(6), range };
  const sign = value[0];
  if (hr === undefined || mm === undefined || (sign !== '+' && sign !== '-')) return undefined;
  f.offsetSeconds = (sign === '-' ? -1 : 1) * (hr.n * 60 + mm.n) * 60;
  return { rest: value.slice(6) };
}

function parseSecond(value: string, f: Fields, layoutHasFraction: boolean): StepResult {
  const sec = getnum(value, true);
  if (sec === undefined) return undefined;
  f.second = sec.n;
  if (sec.n >= 60) return { rest: sec.rest, range: 'second' };
  let rest = sec.rest;
  // A fraction the layout does not name is still read (and kept to the nanosecond).
  if (
    !layoutHasFraction &&
    rest.length >= 2 &&
    (rest.startsWith('.') || rest.startsWith(',')) &&
    isDigit(rest, 1)
  ) {
    let n = 2;
    while (isDigit(rest, n)) n++;
    const ns = parseNanos(rest, n);
    if (ns === undefined) return undefined;
    f.nanos = ns.ns;
    rest = rest.slice(n);
    if (ns.range !== undefined) return { rest, range: ns.range };
  }
  return { rest };
}

function parseNumber(
  value: string,
  fixed: boolean,
  set: (n: number) => void,
  max: number,
  name: string,
  min = 0,
): StepResult {
  const r = getnum(value, fixed);
  if (r === undefined) return undefined;
  set(r.n);
  return r.n < min || r.n > max ? { rest: r.rest, range: name } : { rest: r.rest };
}

function step(std: Std, value: string, f: Fields, layoutHasFraction: boolean): StepResult {
  switch (std) {
    case 'year': {
      if (value.length < 4 || !isDigit(value, 0)) return undefined;
      const y = atoi(value.slice(0, 4));
      if (y === undefined) return undefined;
      f.year = y;
      return { rest: value.slice(4) };
    }
    case 'month':
      return parseNumber(value, true, (n) => (f.month = n), 12, 'month', 1);
    case 'day':
      return parseNumber(value, true, (n) => (f.day = n), 99, 'day');
    case 'hour':
      return parseNumber(value, false, (n) => (f.hour = n), 23, 'hour');
    case 'minute':
      return parseNumber(value, true, (n) => (f.minute = n), 59, 'minute');
    case 'second':
      return parseSecond(value, f, layoutHasFraction);
    case 'micro': {
      if (value.length < 7) return undefined;
      const ns = parseNanos(value, 7);
      if (ns === undefined) return undefined;
      f.nanos = ns.ns;
      return ns.range === undefined
        ? { rest: value.slice(7) }
        : { rest: value.slice(7), range: ns.range };
    }
    case 'zone':
      return parseZone(value, f);
  }
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** time.Parse(layout, value) for the two layouts; the fields, or Go's error text. */
function goParse(kind: TimeKind, input: string): { fields: Fields } | { message: string } {
  const layout = LAYOUTS[kind];
  const bytes = Buffer.from(input, 'utf8').toString('latin1');
  const head = `parsing time ${quote(bytes)}`;
  const cannot = (valueElem: string, layoutElem: string): { message: string } => ({
    message:
      `${head} as ${quote(layout.text)}: cannot parse ${quote(valueElem)} as ` + quote(layoutElem),
  });
  const f: Fields = {
    year: 0,
    month: 0,
    day: 0,
    hour: 0,
    minute: 0,
    second: 0,
    nanos: 0,
    offsetSeconds: 0,
  };
  let value = bytes;
  for (const c of layout.chunks) {
    if (c.prefix !== '') {
      if (!value.startsWith(c.prefix)) return cannot(value, c.prefix);
      value = value.slice(c.prefix.length);
    }
    const r = step(c.std, value, f, kind === 'MicroTime');
    if (r === undefined) return cannot(value, c.text);
    if (r.range !== undefined) return { message: `${head}: ${r.range} out of range` };
    value = r.rest;
  }
  if (value !== '') return { message: `${head}: extra text: ${quote(value)}` };
  if (f.day < 1 || f.day > daysIn(f.month, f.year)) return { message: `${head}: day out of range` };
  return { fields: f };
}

/** Nanoseconds since the epoch of the parsed fields. */
function epochNanos(f: Fields): bigint {
  const d = new Date(0);
  d.setUTCFullYear(f.year, f.month - 1, f.day);
  d.setUTCHours(f.hour, f.minute, f.second, 0);
  return (BigInt(d.getTime()) - BigInt(f.offsetSeconds) * 1000n) * 1_000_000n + BigInt(f.nanos);
}

const floorDiv = (a: bigint, b: bigint): bigint => (a >= 0n || a % b === 0n ? a / b : a / b - 1n);
const ZERO_TIME_SECONDS = -62135596800n; // 0001-01-01T00:00:00Z, Go's zero time.
const MIN_SECONDS = -62167219200n; // 0000-01-01T00:00:00Z
const MAX_SECONDS = 253402300799n; // 9999-12-31T23:59:59Z

/**
 * Parses a Time or MicroTime as the reference does and gives the form it stores: UTC, truncated
 * to the second (Time) or microsecond (MicroTime), null for the zero time. An instant that lands
 * outside years 0000-9999 in UTC is refused: the reference would write a year it cannot read back.
 */
export function normalizeTime(kind: TimeKind, input: string): TimeResult {
  const parsed = goParse(kind, input);
  if ('message' in parsed) return { ok: false, message: parsed.message };
  const ns = epochNanos(parsed.fields);
  const seconds = floorDiv(ns, 1_000_000_000n);
  const micros = floorDiv(ns, 1000n) - seconds * 1_000_000n;
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) {
    return {
      ok: false,
      message:
        `parsing time ${quote(Buffer.from(input, 'utf8').toString('latin1'))}: the ` +
        `instant is outside years 0000-9999 once converted to UTC`,
    };
  }
  if (seconds === ZERO_TIME_SECONDS && (kind === 'Time' || micros === 0n))
    return { ok: true, value: null };
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return {
    ok: true,
    value: kind === 'Time' ? `${whole}Z` : `${whole}.${micros.toString().padStart(6, '0')}Z`,
  };
}
