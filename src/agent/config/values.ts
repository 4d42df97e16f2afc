// Adapter over the CLI's value parsers (src/util/values, the one implementation) for config code:
// the "try" forms return undefined instead of throwing, so validation can collect every problem.
import { normalizeDuration, parseQuantity } from '../../common/util/values/index.js';

export { tryDurationMs } from '../../common/util/values/duration.js';

/** The amount in base units, or undefined when `text` is not a quantity. */
export function tryQuantity(text: string | number): number | undefined {
  try {
    return parseQuantity(String(text)).value;
  } catch {
    return undefined;
  }
}

/** `1m` -> `1m0s`; returns the input unchanged when it does not parse (validation reports it). */
export function tryNormalizeDuration(text: string): string {
  try {
    return normalizeDuration(text);
  } catch {
    return text;
  }
}

/** `1024Ki` -> `1Mi`, numbers to strings; unchanged text when it does not parse. */
export function tryNormalizeQuantity(v: string | number): string {
  try {
    return parseQuantity(String(v)).canonical;
  } catch {
    return String(v);
  }
}
