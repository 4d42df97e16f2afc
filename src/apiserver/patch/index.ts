// PATCH for plat-apiserver: JSON patch, JSON merge patch, strategic merge patch and server-side
// apply, with field management. `applyPatch` returns the patched object; for apply patches it
// already carries metadata.managedFields (do not call updateManagedFields again), for the other
// types it carries an Update entry for `manager` computed from `live` (callers that change the
// object further, e.g. a strategy restoring spec, call updateManagedFields again with the same
// `live`: it is idempotent).

import {
  DecodeError,
  checkAgainstSchema,
  decodeBody,
  findJsonDuplicates,
  jsonSyntaxMessage,
} from '../decode.js';
import { limitText, parseJsonBody, parseJsonPatchBody } from '../body-limits.js';
import { InputLimitError, InputSyntaxError } from '../../common/util/errors.js';
import { PatchError, badRequest } from './errors.js';
import { applyJsonPatch } from './json-patch.js';
import {
  serverSideApply,
  updateManagedFields,
  validateFieldManager,
  type ServerSideApplyOptions,
} from './managed-fields.js';
import { mergePatch } from './merge-patch.js';
import { strategicMergePatch } from './strategic.js';
import { formatFieldErrors } from '../field-errors.js';
import { goQuote } from '../../common/util/go-quote.js';
import { isOneOf, isRecord } from '../../common/util/json-shape.js';
import { goPatchedJson, goPrintDecoded, jsonPatchTouched, mergePatchTouched } from './go-render.js';

export { PatchError, type PatchErrorCause } from './errors.js';
export {
  updateManagedFields,
  serverSideApply,
  defaultFieldManager,
  validateFieldManager,
  parseManagedFields,
  encodeManagedFields,
  ignoredPaths,
  FIELD_MANAGER_MAX_LENGTH,
  type ManagerEntry,
  type ManagedFieldsEntryJson,
  type ManagedFieldsOperation,
  type UpdateManagedFieldsOptions,
  type ServerSideApplyOptions,
} from './managed-fields.js';
export { mergePatch, createMergePatch } from './merge-patch.js';
export { strategicMergePatch } from './strategic.js';
export { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from './json-patch.js';
export {
  FieldSet,
  toFieldsV1,
  fromFieldsV1,
  pathString,
  type FieldsV1,
  type FieldPath,
} from './fieldset.js';
export { toFieldSet, compare } from './typed.js';

export const PATCH_CONTENT_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;
export type PatchType = (typeof PATCH_CONTENT_TYPES)[number];

/**
 * Server-side apply's options with the body still text: `live` is the stored object (undefined
 * when it does not exist: only apply may then create it); `manager` the fieldManager (already
 * defaulted from the User-Agent for non-apply patches; may be '').
 */
export interface ApplyPatchOptions extends Omit<ServerSideApplyOptions, 'config'> {
  readonly patchBody: string;
  readonly contentType: string;
}

export interface ApplyPatchResult {
  readonly object: Record<string, unknown>;
  /** True when an apply patch created the object (201). */
  readonly created: boolean;
  /** Fields of the result unknown to the kind's schema (for fieldValidation). */
  readonly unknownFields: string[];
  /** Duplicate keys in the patch body (for fieldValidation). */
  readonly duplicateFields: string[];
}

/** The patch type of a Content-Type header, or undefined (415). */
export function patchTypeOf(contentType: string): PatchType | undefined {
  const mt = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return isOneOf(PATCH_CONTENT_TYPES, mt) ? mt : undefined;
}

function unsupported(contentType: string): PatchError {
  const got = (contentType.split(';')[0] ?? '').trim();
  return new PatchError({
    status: 415,
    reason: 'UnsupportedMediaType',
    message:
      `the body of the request was in an unknown format - accepted media types include: ` +
      PATCH_CONTENT_TYPES.join(', ') +
      (got !== '' ? ` (got ${got})` : ''),
  });
}

/**
 * A merge or strategic merge patch body within API_BODY_LIMITS. Nesting beyond the limit is
 * answered as the reference answers it (kjson.UnmarshalStrict's error: `error decoding patch: ...`
 * for a merge patch, the bare error for a strategic merge patch).
 */
function parseJsonObject(body: string, strategic: boolean): Record<string, unknown> {
  let v: unknown;
  try {
    v = parseJsonBody(body);
  } catch (e) {
    if (e instanceof InputLimitError) {
      const text = limitText(body, e, false);
      throw badRequest(
        strategic && e.limit === 'maxDepth' ? text : `error decoding patch: ${text}`,
      );
    }
    throw badRequest(
      `error decoding patch: ${jsonSyntaxMessage(e instanceof InputSyntaxError ? e.cause : e)}`,
    );
  }
  if (!isRecord(v)) throw badRequest('error decoding patch: the patch must be a JSON object');
  return v;
}

/**
 * The patched object does not decode into its type (a wrong JSON type, a []byte field that is
 * not base64): the reference's 422 with an empty kind and name and the decoder's error as the
 * detail. The `patch` field's invalid value is the patched object as the reference's JSON or
 * merge patch library writes it, or, for a strategic merge patch, the patch as Go prints the
 * decoded map (and the error then starts `error decoding from json: `).
 */
function undecodablePatched(invalidValue: string, decodeError: string): PatchError {
  const body = `Invalid value: ${goQuote(invalidValue)}: ${decodeError}`;
  return new PatchError({
    status: 422,
    reason: 'Invalid',
    message: ` "" is invalid: patch: ${body}`,
    causes: [{ reason: 'FieldValueInvalid', message: body, field: 'patch' }],
  });
}

/**
 * The `patch` field's invalid value for a result that does not decode: for a strategic merge
 * patch the patch as Go prints the decoded map (the reference decodes the result with its
 * unstructured converter, whose words the error then has), otherwise the patched object as the
 * JSON or merge patch library writes it.
 */
function undecodableText(type: PatchType, live: Obj, patched: Patched, patchBody: string): string {
  if (patched.mergePatch === undefined)
    return goPatchedJson(patched.object, jsonPatchTouched(parseJsonPatchBody(patchBody)));
  if (type === 'application/strategic-merge-patch+json') return goPrintDecoded(patched.mergePatch);
  return goPatchedJson(patched.object, mergePatchTouched(live, patched.mergePatch));
}

function newUnknownFields(
  type: PatchType,
  live: Obj,
  patched: Patched,
  patchBody: string,
  kind: string,
): string[] {
  const before = new Set(checkAgainstSchema(live, kind).unknownFields);
  const after = checkAgainstSchema(patched.object, kind);
  if (after.typeError !== undefined) {
    const strategic = type === 'application/strategic-merge-patch+json';
    throw undecodablePatched(
      undecodableText(type, live, patched, patchBody),
      (strategic ? after.converterError : undefined) ?? after.typeError,
    );
  }
  return after.unknownFields.filter((f) => !before.has(f));
}

/** The reference's 422 with one field error. */
function fieldInvalid(field: string, reason: string, detail: string): PatchError {
  return new PatchError({
    status: 422,
    reason: 'Invalid',
    message: `${field}: ${detail}`,
    causes: [{ reason, message: detail, field }],
  });
}

/** The options every patch type checks first: force only with apply, a valid field manager. */
function checkPatchOptions(opts: ApplyPatchOptions, isApply: boolean): void {
  if (opts.force && !isApply)
    throw fieldInvalid(
      'force',
      'FieldValueInvalid',
      'Invalid value: true: may not be specified for non-apply patch',
    );
  if (isApply && opts.manager === '')
    throw fieldInvalid(
      'fieldManager',
      'FieldValueRequired',
      'Required value: is required for apply patch',
    );
  const fmErrs = validateFieldManager(opts.manager);
  if (fmErrs.length > 0)
    throw new PatchError({ status: 422, reason: 'Invalid', message: formatFieldErrors(fmErrs) });
}

/** The apply configuration decoded as the reference decodes a YAML body, or its 400. */
function decodeApplyBody(opts: ApplyPatchOptions): ReturnType<typeof decodeBody> {
  try {
    return decodeBody({
      body: opts.patchBody,
      contentType: 'application/apply-patch+yaml',
      kind: opts.kind,
      apiVersion: opts.apiVersion,
      exactGvk: true,
    });
  } catch (e) {
    // The reference: `error decoding YAML: <sigs.k8s.io/yaml's error>` for a body nested too deep.
    if (e instanceof DecodeError && e.limit !== undefined)
      throw badRequest(`error decoding YAML: ${limitText(opts.patchBody, e.limit, true)}`);
    if (e instanceof DecodeError && e.yamlConversion !== undefined)
      throw badRequest(`error decoding YAML: ${e.yamlConversion}`);
    if (e instanceof DecodeError) throw badRequest(e.message);
    throw e;
  }
}

function applyServerSide(opts: ApplyPatchOptions): ApplyPatchResult {
  const decoded = decodeApplyBody(opts);
  const r = serverSideApply({
    live: opts.live,
    config: decoded.object,
    kind: opts.kind,
    manager: opts.manager,
    force: opts.force,
    subresource: opts.subresource,
    apiVersion: opts.apiVersion,
    now: opts.now,
  });
  return {
    object: r.object,
    created: r.created,
    unknownFields: decoded.unknownFields,
    duplicateFields: decoded.duplicateFields,
  };
}

type Obj = Record<string, unknown>;

/** The patched object, and the merge or strategic merge patch that made it (parsed once). */
interface Patched {
  readonly object: Obj;
  readonly mergePatch?: Obj;
}

/** A JSON, merge or strategic merge patch applied to the live object. */
function patchedObject(
  type: Exclude<PatchType, 'application/apply-patch+yaml'>,
  opts: ApplyPatchOptions,
  live: Obj,
  duplicateFields: string[],
): Patched {
  let result: unknown;
  let mergePatchDoc: Obj | undefined;
  if (type === 'application/json-patch+json') result = applyJsonPatch(live, opts.patchBody);
  else {
    const strategic = type === 'application/strategic-merge-patch+json';
    mergePatchDoc = parseJsonObject(opts.patchBody, strategic);
    result = strategic
      ? strategicMergePatch(opts.kind, live, mergePatchDoc)
      : mergePatch(live, mergePatchDoc);
    findJsonDuplicates(opts.patchBody, duplicateFields);
  }
  if (!isRecord(result))
    throw new PatchError({
      status: 422,
      reason: 'Invalid',
      message: 'the patched object must be a JSON object',
    });
  return mergePatchDoc === undefined
    ? { object: result }
    : { object: result, mergePatch: mergePatchDoc };
}

export function applyPatch(opts: ApplyPatchOptions): ApplyPatchResult {
  const type = patchTypeOf(opts.contentType);
  if (type === undefined) throw unsupported(opts.contentType);
  const isApply = type === 'application/apply-patch+yaml';
  checkPatchOptions(opts, isApply);
  if (isApply) return applyServerSide(opts);
  if (opts.live === undefined)
    throw new PatchError({
      status: 404,
      reason: 'NotFound',
      message: 'the object to patch does not exist',
    });
  const live = opts.live;
  const duplicateFields: string[] = [];
  const patched = patchedObject(type, opts, live, duplicateFields);
  const object = patched.object;
  const unknownFields = newUnknownFields(type, live, patched, opts.patchBody, opts.kind);
  if (opts.manager !== '')
    updateManagedFields({
      oldObj: live,
      newObj: object,
      manager: opts.manager,
      operation: 'Update',
      subresource: opts.subresource,
      apiVersion: opts.apiVersion,
      now: opts.now,
      kind: opts.kind,
    });
  return { object, created: false, unknownFields, duplicateFields };
}
