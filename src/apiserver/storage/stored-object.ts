// A stored value's plaintext read back as the object it holds: UTF-8 (strict), JSON, an object,
// with its row's revision as metadata.resourceVersion (stored values never carry one). The store's
// reads and the worker threads' served text (workers/served-job.ts) both read values this way.
import { isRecord, recordOf } from '../../common/util/json-shape.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The object of a value's plaintext at revision `rv`; throws when it is not one. */
export function storedObjectOf(plain: Uint8Array, rv: number): Record<string, unknown> {
  const parsed: unknown = JSON.parse(decoder.decode(plain));
  if (!isRecord(parsed)) throw new Error('not an object');
  parsed['metadata'] = { ...recordOf(parsed['metadata']), resourceVersion: String(rv) };
  return parsed;
}
