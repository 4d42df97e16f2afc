// Quantities in a pod as the reference's API server serves them: every quantity in its canonical
// spelling, and resource lists (limits, requests, overhead) rounded up to whole milli-units first.
// A value that is not a quantity is left as sent, for validation to name.

import { isRecord } from '../../../common/util/json-shape.js';
import { servedQuantity } from '../../../common/util/values/quantity.js';
import type { Obj } from '../types.js';

function served(v: unknown, milli: boolean): unknown {
  const text = typeof v === 'number' && Number.isFinite(v) ? String(v) : v;
  if (typeof text !== 'string') return v;
  try {
    return servedQuantity(text.trim(), milli);
  } catch {
    return v;
  }
}

/** The quantity at o[key], canonical (a divisor, a size limit). */
export function canonicalQuantityAt(o: Obj, key: string): void {
  if (o[key] !== undefined && o[key] !== null) o[key] = served(o[key], false);
}

/**
 * Each quantity of the resource list at o[key], rounded up to milli-units and canonical; an empty
 * list is not served (the reference omits empty maps).
 */
export function canonicalResourceListAt(o: Obj, key: string): void {
  const list = o[key];
  if (!isRecord(list)) return;
  const entries = Object.entries(list);
  if (entries.length === 0) Reflect.deleteProperty(o, key);
  for (const [name, v] of entries) list[name] = served(v, true);
}
