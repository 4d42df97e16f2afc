// The parts of a DELETE that only look at the object and the options: what must hold before it
// is deleted (the reference's preconditions, and the store-read-error option only for unreadable
// objects), the grace period it gets, and the deletion mark of a graceful or finalizer-held delete.

import { conflict, invalid } from '../status.js';
import { timeString } from './meta.js';
import { clone, metaOf, type Obj, type ResourceDef } from './types.js';
import { textOf } from '../../common/util/text-of.js';

/** What these steps read of a DELETE's options. */
export interface DeleteStepOptions {
  readonly gracePeriodSeconds: number | undefined;
  readonly preconditions:
    | { readonly uid?: string | undefined; readonly resourceVersion?: string | undefined }
    | undefined;
  readonly ignoreStoreReadError: boolean;
}

/** Throws the reference's answers when the options do not allow deleting this readable object. */
export function checkDeletable(
  def: ResourceDef,
  name: string,
  obj: Obj,
  opts: DeleteStepOptions,
  platformDomain: string,
): void {
  if (opts.ignoreStoreReadError) {
    throw invalid('DeleteOptions', `meta.${platformDomain}`, '', [
      {
        type: 'FieldValueInvalid',
        field: 'ignoreStoreReadErrorWithClusterBreakingPotential',
        value: true,
        detail:
          'is exclusively used to delete corrupt object(s), try again by removing this option',
      },
    ]);
  }
  const meta = metaOf(obj);
  const pre = opts.preconditions;
  if (pre?.uid !== undefined && pre.uid !== meta['uid']) {
    throw conflict(
      def.resource,
      def.group,
      name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ` +
        textOf(meta['uid'] ?? ''),
    );
  }
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== meta['resourceVersion']) {
    throw conflict(
      def.resource,
      def.group,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ` +
        `ResourceVersion in object meta: ${textOf(meta['resourceVersion'] ?? '')}`,
    );
  }
}

/**
 * The grace period in seconds: 0 for kinds without one; the kind's default unless the request sets
 * one (a kind whose default is 0 stays 0).
 */
export function deleteGraceSeconds(def: ResourceDef, obj: Obj, opts: DeleteStepOptions): number {
  if (def.defaultGracePeriodSeconds === undefined) return 0;
  if (opts.gracePeriodSeconds === undefined) return def.defaultGracePeriodSeconds(obj) ?? 0;
  return def.defaultGracePeriodSeconds(obj) === 0 ? 0 : opts.gracePeriodSeconds;
}

/** Deletion waits for a grace period or for finalizers: the object is marked, not removed. */
export function deletesGracefully(obj: Obj, grace: number): boolean {
  const finalizers = metaOf(obj)['finalizers'];
  return grace > 0 || (Array.isArray(finalizers) && finalizers.length > 0);
}

/**
 * A copy of the object marked for deletion at now + grace (kept when an earlier mark is as soon).
 */
export function markedForDeletion(obj: Obj, grace: number, now: Date): Obj {
  const meta = metaOf(obj);
  const next = clone(obj);
  const nmeta = metaOf(next);
  const existingGrace =
    typeof meta['deletionGracePeriodSeconds'] === 'number'
      ? meta['deletionGracePeriodSeconds']
      : undefined;
  if (
    meta['deletionTimestamp'] === undefined ||
    (existingGrace !== undefined && grace < existingGrace)
  ) {
    nmeta['deletionTimestamp'] = timeString(new Date(now.getTime() + grace * 1000));
    nmeta['deletionGracePeriodSeconds'] = grace;
  }
  return next;
}
