// managedFields bookkeeping behind one small interface, so the registry does not care whether
// the full field-ownership implementation (src/apiserver/patch) is plugged in.

import { updateManagedFields } from '../patch/index.js';
import type { Obj } from './types.js';

export interface ManagedFieldsArgs {
  readonly oldObj: Obj | undefined;
  readonly newObj: Obj;
  readonly manager: string;
  readonly operation: 'Update' | 'Apply';
  readonly subresource: string;
  readonly apiVersion: string;
  readonly now: Date;
}

export interface ManagedFieldsUpdater {
  /** Returns `newObj` with metadata.managedFields updated for this write. */
  update(args: ManagedFieldsArgs): Obj;
}

/**
 * Field ownership as the reference tracks it (src/apiserver/patch): Update entries from the
 * difference between the stored and the written object. Apply writes already carry their
 * managedFields from server-side apply.
 */
export function trackedManagedFields(): ManagedFieldsUpdater {
  return {
    update: (a) => (a.operation === 'Apply' ? a.newObj : updateManagedFields(a)),
  };
}
