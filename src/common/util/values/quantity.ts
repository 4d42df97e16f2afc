// The reference's resource.Quantity grammar and canonical form:
//   <quantity> ::= <sign>? <number> <suffix>
//   <number>   ::= digits | digits.digits | digits. | .digits
//   <suffix>   ::= Ki Mi Gi Ti Pi Ei | n u m "" k M G T P E | (e|E) <signed integer>
// Values are kept exactly, in BigInt nano-units (the reference rounds anything finer up to 1n).
import { invalidValue } from './error.js';

export interface Quantity {
  /** The amount in base units (bytes, cores, ...), possibly fractional. */
  readonly value: number;
  /** The reference's canonical spelling: "1Gi", "1500M", "500m", "1e3", "0". */
  readonly canonical: string;
}

export const QUANTITY_ACCEPTED =
  'a quantity such as 128974848, 129e6, 129M, 123Mi, 500m or 1.5Gi (suffixes Ki Mi Gi ' +
  'Ti Pi Ei, n u m k M G T P E, or e<exponent>)';

type Format = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

// Maps, not objects: a suffix such as "toString" must not find Object.prototype's.
const BINARY: ReadonlyMap<string, number> = new Map([
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
  ['Pi', 50],
  ['Ei', 60],
]);
const DECIMAL: ReadonlyMap<string, number> = new Map([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);
const DECIMAL_SUFFIX: Readonly<Record<number, string>> = {
  [-9]: 'n',
  [-6]: 'u',
  [-3]: 'm',
  0: '',
  3: 'k',
  6: 'M',
  9: 'G',
  12: 'T',
  15: 'P',
  18: 'E',
};
const BINARY_SUFFIX = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;
const NANO = 1_000_000_000n;
/** Exponents beyond this are refused rather than expanded into huge BigInts. */
const MAX_EXPONENT = 200;

const SHAPE = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/;

function divCeilAbs(num: bigint, den: bigint): bigint {
  // Rounds away from zero, as the reference's RoundUp does.
  const q = num / den;
  return num % den === 0n ? q : num < 0n ? q - 1n : q + 1n;
}

/** Parses a quantity; throws FlagError naming `flag` otherwise. */
export function parseQuantity(s: string, flag?: string): Quantity {
  const { nano, format } = parseExact(s, flag);
  return { value: Number(nano) / 1e9, canonical: canonicalize(nano, format) };
}

/**
 * A stored object's quantity as a number: 0 when absent, not a string or number, or unreadable
 * (validation names those; a reader that only sums amounts counts nothing for them).
 */
export function quantityValueOrZero(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return 0;
  try {
    return parseQuantity(v).value;
  } catch {
    return 0;
  }
}

const MILLI_IN_NANO = 1_000_000n;

/**
 * The spelling the reference's API server serves for a quantity it stored: canonical, and for
 * resource lists (`milli`) rounded up to a whole milli-unit first. Throws as parseQuantity does.
 */
export function servedQuantity(s: string, milli: boolean): string {
  const { nano, format } = parseExact(s);
  const rounded = milli ? divCeilAbs(nano, MILLI_IN_NANO) * MILLI_IN_NANO : nano;
  return canonicalize(rounded, format);
}

function parseExact(s: string, flag?: string): { nano: bigint; format: Format } {
  const fail = (reason: string): never => {
    throw invalidValue(s, flag, reason, QUANTITY_ACCEPTED);
  };
  const m = SHAPE.exec(s);
  const sign = m?.[1] ?? '';
  const whole = m?.[2] ?? '';
  const frac = m?.[3] ?? '';
  const suffix = m?.[4] ?? '';
  if (m === null || (whole === '' && frac === '')) {
    return fail(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  }
  let format: Format;
  let pow10 = 0;
  let pow2 = 0;
  const bin = BINARY.get(suffix);
  const dec = DECIMAL.get(suffix);
  if (bin !== undefined) {
    format = 'BinarySI';
    pow2 = bin;
  } else if (dec !== undefined) {
    format = 'DecimalSI';
    pow10 = dec;
  } else if (/^[eE][+-]?[0-9]+$/.test(suffix)) {
    format = 'DecimalExponent';
    pow10 = Number(suffix.slice(1));
    if (Math.abs(pow10) > MAX_EXPONENT)
      return fail(`exponent out of range (at most ${MAX_EXPONENT})`);
  } else {
    return fail("unable to parse quantity's suffix");
  }
  if (whole.length + frac.length > 1000) return fail('too many digits');
  // amount = digits * 10^(pow10 - frac.length) * 2^pow2, kept in nano-units.
  let num = BigInt(`${whole}${frac}` || '0') * 2n ** BigInt(pow2) * NANO;
  let den = 1n;
  const e10 = pow10 - frac.length;
  if (e10 >= 0) num *= 10n ** BigInt(e10);
  else den = 10n ** BigInt(-e10);
  if (sign === '-') num = -num;
  return { nano: divCeilAbs(num, den), format };
}

/** The reference's CanonicalizeBytes, over an exact amount in nano-units. */
export function canonicalize(nano: bigint, format: Format): string {
  if (nano === 0n) return '0';
  const neg = nano < 0n;
  const abs = neg ? -nano : nano;
  const sign = neg ? '-' : '';
  if (format === 'BinarySI' && abs >= 1024n * NANO && abs % NANO === 0n) {
    let units = abs / NANO;
    let k = 0;
    while (k < BINARY_SUFFIX.length - 1 && units % 1024n === 0n) {
      units /= 1024n;
      k++;
    }
    return `${sign}${units}${BINARY_SUFFIX[k] ?? ''}`;
  }
  // Decimal: the largest exponent that is a multiple of 3 and keeps the mantissa whole.
  let mantissa = abs;
  let exponent = -9;
  while (mantissa % 1000n === 0n) {
    mantissa /= 1000n;
    exponent += 3;
  }
  if (format === 'DecimalExponent')
    return `${sign}${mantissa}${exponent === 0 ? '' : `e${exponent}`}`;
  while (exponent > 18) {
    mantissa *= 1000n;
    exponent -= 3;
  }
  return `${sign}${mantissa}${DECIMAL_SUFFIX[exponent] ?? ''}`;
}

/** Parses a quantity and returns its canonical spelling, the form the config file stores. */
export function normalizeQuantity(s: string, flag?: string): string {
  return parseQuantity(s, flag).canonical;
}
