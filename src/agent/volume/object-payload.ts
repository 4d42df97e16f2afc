// The files a configMap or secret volume (or projection) holds, as the reference's MakePayload:
// every key with the default mode, or only the listed items (key -> path, each its mode or the
// default); a listed key the object lacks fails the volume unless it is optional (then skipped).
// A missing optional object is an empty one.
import type { KeyToPath } from '../pod/types.js';
import type { PodObject } from '../objects/types.js';
import type { Payload } from './atomic-writer.js';

/** The API's default for defaultMode (0644). */
export const DEFAULT_MODE = 0o644;

export function objectPayload(o: {
  object: PodObject | undefined;
  kind: 'ConfigMap' | 'Secret';
  items: readonly KeyToPath[] | undefined;
  defaultMode: number;
  optional: boolean;
}): Payload {
  const data = o.object?.data ?? new Map<string, Buffer>();
  const payload: Payload = new Map();
  if (o.items === undefined || o.items.length === 0) {
    for (const [k, v] of data) payload.set(k, { data: v, mode: o.defaultMode });
    return payload;
  }
  for (const item of o.items) {
    const value = data.get(item.key);
    if (value === undefined) {
      if (o.optional) continue;
      throw new Error(
        o.kind === 'ConfigMap'
          ? `configmap references non-existent config key: ${item.key}`
          : `references non-existent secret key: ${item.key}`,
      );
    }
    payload.set(item.path, { data: value, mode: item.mode ?? o.defaultMode });
  }
  return payload;
}
