// JSON merge patch (RFC 7386), one implementation for the whole project: config drop-ins and
// plat-apiserver's merge-patch requests. Objects merge key by key, null deletes, anything else
// (scalars, lists) replaces the target value whole. Inputs are never changed.

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Sets an own property, also for the key "__proto__" (which plain assignment would treat as the
 * prototype).
 */
export function setOwn(obj: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(obj, k, {
      value: v,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  else obj[k] = v;
}

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) Reflect.deleteProperty(out, k);
    else setOwn(out, k, mergePatch(Object.hasOwn(out, k) ? out[k] : undefined, v));
  }
  return out;
}
