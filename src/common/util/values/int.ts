// Go's strconv.ParseInt(s, 0, bits), as pflag's int32 and int flags use it: an optional sign,
// then decimal, 0x hex, 0o or leading-0 octal, or 0b binary digits, with `_` allowed between
// digits (Go's base-0 rule).
import { invalidValue, quote } from './error.js';

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

/** Bounds of `int`: Go's int is 64-bit, but a JavaScript number is exact only to 2^53 - 1. */
export const INT_MIN = Number.MIN_SAFE_INTEGER;
export const INT_MAX = Number.MAX_SAFE_INTEGER;

const DIGITS: Record<number, RegExp> = {
  2: /^[01]+$/,
  8: /^[0-7]+$/,
  10: /^[0-9]+$/,
  16: /^[0-9a-fA-F]+$/,
};

function digitsOf(body: string): { base: number; digits: string } | undefined {
  let base = 10;
  let rest = body;
  let prefixed = false;
  if (/^0[xX]/.test(rest)) {
    base = 16;
    rest = rest.slice(2);
    prefixed = true;
  } else if (/^0[oO]/.test(rest)) {
    base = 8;
    rest = rest.slice(2);
    prefixed = true;
  } else if (/^0[bB]/.test(rest)) {
    base = 2;
    rest = rest.slice(2);
    prefixed = true;
  }
  if (rest.includes('_')) {
    // Go's underscoreOK: each `_` follows a digit (or a 0x/0o/0b prefix), never doubled or last.
    if (/__|_$/.test(rest) || (rest.startsWith('_') && !prefixed)) return undefined;
    rest = rest.replace(/_/g, '');
  }
  if (!prefixed && rest.length > 1 && rest.startsWith('0')) {
    base = 8;
    rest = rest.slice(1);
  }
  const re = DIGITS[base];
  if (!re?.test(rest)) return undefined;
  return { base, digits: rest };
}

/** Parses an integer in Go base-0 syntax within [min, max]; throws FlagError naming `flag`. */
export function parseGoInt(s: string, flag: string | undefined, min: number, max: number): number {
  const accepted = `an integer from ${min} to ${max} (decimal, 0x hex, 0o octal or 0b binary)`;
  let body = s;
  let neg = false;
  if (body.startsWith('+') || body.startsWith('-')) {
    neg = body.startsWith('-');
    body = body.slice(1);
  }
  const d = digitsOf(body);
  if (d === undefined)
    throw invalidValue(s, flag, `strconv.ParseInt: parsing ${quote(s)}: invalid syntax`, accepted);
  let v = 0n;
  const b = BigInt(d.base);
  for (const ch of d.digits) v = v * b + BigInt(parseInt(ch, 16));
  if (neg) v = -v;
  if (v < BigInt(min) || v > BigInt(max)) {
    throw invalidValue(
      s,
      flag,
      `strconv.ParseInt: parsing ${quote(s)}: value out of range`,
      accepted,
    );
  }
  return Number(v);
}

export function parseInt32(s: string, flag?: string): number {
  return parseGoInt(s, flag, INT32_MIN, INT32_MAX);
}

export function parseInt64(s: string, flag?: string): number {
  return parseGoInt(s, flag, INT_MIN, INT_MAX);
}
