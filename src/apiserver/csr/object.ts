// Small readers for CSR objects in their JSON form.
import { isRecord, listOf, recordOf } from '../../common/util/json-shape.js';

export interface Condition {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
  lastUpdateTime?: unknown;
  lastTransitionTime?: unknown;
  [k: string]: unknown;
}

export { recordOf as asRecord, listOf as asArray } from '../../common/util/json-shape.js';

export function conditionsOf(obj: Record<string, unknown>): Condition[] {
  return listOf(recordOf(obj['status'])['conditions']).map((c): Condition => recordOf(c));
}

export function isDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => isDeepEqual(x, b[i]));
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  const ra = a;
  const rb = b;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => isDeepEqual(ra[k], rb[k]));
}

export function deepClone<T>(v: T): T {
  return structuredClone(v);
}

/** RFC 3339 with second precision, as the reference's metav1.Time serializes. */
export function formatTime(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}
