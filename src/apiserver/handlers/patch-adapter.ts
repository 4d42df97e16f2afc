// The one place the REST layer applies a PATCH body to the live object, through the patch
// library (json-patch, merge-patch, strategic-merge-patch for the built-in types, server-side
// apply with field ownership and conflicts). Its errors become Status errors.

import {
  applyPatch,
  PatchError,
  patchTypeOf as libPatchTypeOf,
  PATCH_CONTENT_TYPES,
  type ApplyPatchOptions,
  type PatchType,
} from '../patch/index.js';
import { StatusError, unsupportedMediaType } from '../status.js';
import type { Obj } from '../registry/types.js';

export type { PatchType };

export function patchTypeOf(contentType: string | undefined): PatchType {
  const t = libPatchTypeOf(contentType ?? '');
  if (t === undefined) throw unsupportedMediaType(contentType ?? '', PATCH_CONTENT_TYPES);
  return t;
}

/** The patch library's options, with a content type already known to be a patch type. */
export interface PatchArgs extends ApplyPatchOptions {
  readonly live: Obj | undefined;
  readonly contentType: PatchType;
}

export function applyPatchBody(a: PatchArgs): {
  object: Obj;
  unknownFields: readonly string[];
  duplicateFields: readonly string[];
} {
  try {
    const r = applyPatch(a);
    return { object: r.object, unknownFields: r.unknownFields, duplicateFields: r.duplicateFields };
  } catch (err) {
    if (err instanceof PatchError) {
      throw new StatusError(
        err.status,
        err.reason,
        err.message,
        err.causes === undefined ? undefined : { causes: err.causes.map((c) => ({ ...c })) },
      );
    }
    throw err;
  }
}
