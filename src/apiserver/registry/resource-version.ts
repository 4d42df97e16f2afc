// resourceVersion values as the reference's storage reads them (APIObjectVersioner:
// strconv.ParseUint(rv, 10, 64)); one parser for every place a client hands one in: the list and
// watch query, and metadata.resourceVersion of an update body.

import { goQuote } from '../../common/util/go-quote.js';
import { badRequest, type StatusError } from '../status.js';

const maxUint64 = 18446744073709551615n;

/** Go's strconv.ParseUint(s, 10, 64) error text, or undefined when `s` parses. */
function parseUintError(s: string): string | undefined {
  if (!/^[0-9]+$/.test(s)) return `strconv.ParseUint: parsing ${goQuote(s)}: invalid syntax`;
  if (BigInt(s) > maxUint64) return `strconv.ParseUint: parsing ${goQuote(s)}: value out of range`;
  return undefined;
}

/**
 * The 400 for a resourceVersion that is not an unsigned 64-bit decimal. The text is the
 * reference's (etcd3 store: `invalid resource version: resourceVersion: Invalid value: "x":
 * strconv.ParseUint: parsing "x": invalid syntax`); `field` names where the value came from.
 */
export function invalidResourceVersion(raw: string, field: string, why: string): StatusError {
  return badRequest(`invalid resource version: ${field}: Invalid value: ${goQuote(raw)}: ${why}`);
}

/**
 * Parses a resourceVersion: '' and '0' are 0, any other value must be a uint64 in decimal
 * (a 23-digit number, `-1` or `abc` is a 400 naming the field, never a wait and a 504).
 */
export function parseResourceVersion(raw: string, field = 'resourceVersion'): number {
  if (raw === '' || raw === '0') return 0;
  const why = parseUintError(raw);
  if (why !== undefined) throw invalidResourceVersion(raw, field, why);
  return Number(raw);
}
