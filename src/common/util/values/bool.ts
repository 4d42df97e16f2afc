// Go's strconv.ParseBool, which pflag uses for every boolean flag and feature gate value.
import { invalidValue, quote } from './error.js';

const TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

export const BOOL_ACCEPTED = '1, t, T, true, TRUE, True, 0, f, F, false, FALSE, False';

/** The boolean `s` spells in Go's ParseBool forms, or undefined if it spells none. */
export function goBool(s: string): boolean | undefined {
  if (TRUE.has(s)) return true;
  if (FALSE.has(s)) return false;
  return undefined;
}

/** Parses a Go ParseBool form; throws FlagError naming `flag` otherwise. */
export function parseBool(s: string, flag?: string): boolean {
  const b = goBool(s);
  if (b === undefined)
    throw invalidValue(
      s,
      flag,
      `strconv.ParseBool: parsing ${quote(s)}: invalid syntax`,
      BOOL_ACCEPTED,
    );
  return b;
}
