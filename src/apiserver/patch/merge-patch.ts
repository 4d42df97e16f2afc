// JSON merge patch (RFC 7386): objects merge key by key, null deletes, anything else replaces.

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Sets an own property, also for the key "__proto__" (which plain assignment would treat as the prototype). */
export function setOwn(obj: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(obj, k, { value: v, writable: true, enumerable: true, configurable: true });
  else obj[k] = v;
}

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else setOwn(out, k, mergePatch(Object.hasOwn(out, k) ? out[k] : undefined, v));
  }
  return out;
}

/** The merge patch that turns `a` into `b` (used by tests and diff-based callers). */
export function createMergePatch(a: unknown, b: unknown): unknown {
  if (!isObject(a) || !isObject(b)) return structuredClone(b);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(a)) if (!Object.hasOwn(b, k)) setOwn(out, k, null);
  for (const [k, v] of Object.entries(b)) {
    if (!Object.hasOwn(a, k)) setOwn(out, k, structuredClone(v));
    else if (JSON.stringify(a[k]) !== JSON.stringify(v)) setOwn(out, k, createMergePatch(a[k], v));
  }
  return out;
}
