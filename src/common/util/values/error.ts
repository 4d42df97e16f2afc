// One way to word a bad value, shared by every value parser, in the reference's pflag form
// (`invalid argument "x" for "--flag" flag: <why>`) plus what would have been accepted.
import { FlagError } from '../errors.js';

/** Go's %q for the strings we print: double-quoted with JSON escapes. */
export function quote(s: string): string {
  return JSON.stringify(s);
}

/**
 * Builds the FlagError for a bad value. `flag` is the long flag name without dashes (or
 * undefined when the value did not come from a flag, e.g. a config file field being re-parsed).
 */
export function invalidValue(
  value: string,
  flag: string | undefined,
  reason: string,
  accepted: string,
): FlagError {
  const where =
    flag === undefined
      ? `invalid value ${quote(value)}`
      : `invalid argument ${quote(value)} for ${quote(flagDisplay(flag))} flag`;
  const opts = flag === undefined ? {} : { flag };
  return new FlagError(`${where}: ${reason} (accepted: ${accepted})`, opts);
}

/** `--name`, or pflag's `-v, --v` for the flags that have a one-letter alias. */
export function flagDisplay(flag: string): string {
  return flag === 'v' ? '-v, --v' : flag === 'help' ? '-h, --help' : `--${flag}`;
}
