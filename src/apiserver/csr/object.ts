// Small readers for CSR objects in their JSON form.

export interface Condition {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
  lastUpdateTime?: unknown;
  lastTransitionTime?: unknown;
  [k: string]: unknown;
}

export function asRecord(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function conditionsOf(obj: Record<string, unknown>): Condition[] {
  return asArray(asRecord(obj['status'])['conditions']).map((c) => asRecord(c) as Condition);
}

export function isDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => isDeepEqual(x, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
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
