// The reference's lenient decoding of a Pod (runtime.Decode with its UniversalDecoder, which the
// kubelet uses for static pod files and API answers alike): a JSON null is the field left unset
// (Go's zero value), and an object key the reference's types do not have is dropped, not refused.
// The schemas are strict so that zod names every such key; they are removed and the pod decoded
// again, and the caller is told their paths.
import type { z } from 'zod';
import { isRecord } from '../../common/util/json-shape.js';
import { PodSchema } from './types.js';

/** `spec.containers[0].name` from zod's path. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path)
    out += typeof p === 'number' ? `[${p}]` : `${out === '' ? '' : '.'}${String(p)}`;
  return out;
}

/** A copy of a JSON value without the object members whose value is null. */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = withoutNulls(x);
  return out;
}

/** The object at `path` in `root`, when there is one. */
function objectAt(
  root: unknown,
  path: readonly PropertyKey[],
): Record<string, unknown> | undefined {
  let v: unknown = root;
  for (const p of path) {
    if (Array.isArray(v) && typeof p === 'number') v = v[p];
    else if (isRecord(v) && typeof p === 'string') v = v[p];
    else return undefined;
  }
  return isRecord(v) ? v : undefined;
}

/** Removes the unknown keys zod found (in `value`, a private copy); their paths. */
function dropUnknown(value: unknown, issues: readonly z.core.$ZodIssue[]): string[] {
  const dropped: string[] = [];
  for (const i of issues) {
    if (i.code !== 'unrecognized_keys') continue;
    const o = objectAt(value, i.path);
    if (o === undefined) continue;
    for (const k of i.keys) {
      Reflect.deleteProperty(o, k);
      dropped.push(fieldPath([...i.path, k]));
    }
  }
  return dropped;
}

export interface LenientPod {
  pod: z.ZodSafeParseResult<z.output<typeof PodSchema>>;
  /** The fields dropped, as paths. */
  dropped: string[];
}

export function lenientPod(obj: unknown): LenientPod {
  const value = withoutNulls(obj);
  const first = PodSchema.safeParse(value);
  if (first.success) return { pod: first, dropped: [] };
  const dropped = dropUnknown(value, first.error.issues);
  return { pod: dropped.length === 0 ? first : PodSchema.safeParse(value), dropped };
}
