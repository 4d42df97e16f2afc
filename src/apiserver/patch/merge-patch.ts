// JSON merge patch (RFC 7386): objects merge key by key, null deletes, anything else replaces.

import { isPlainObject as isObject, mergePatch, setOwn } from '../../common/util/merge-patch.js';

export { mergePatch, setOwn };

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
