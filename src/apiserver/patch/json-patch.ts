// JSON Patch (RFC 6902) through fast-json-patch, with the reference's status codes: a body that
// is not a JSON array of operations is 400; an operation that cannot be applied is 422; more than
// 10,000 operations is 413.

import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { PatchError, badRequest } from './errors.js';
import { jsonSyntaxMessage } from '../decode.js';
import { limitText, parseJsonPatchBody } from '../body-limits.js';
import { InputLimitError, InputSyntaxError, userMessage } from '../../common/util/errors.js';
import { API_BODY_LIMITS, measureValue } from '../../common/util/bounded-parse.js';

/**
 * The reference's --json-patch-max-copy-bytes default: what `copy` operations may add in total (3
 * MiB, the body limit), so that a few thousand copies of a copy cannot double the object each time.
 */
export const JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024;

const { applyOperation, getValueByPointer, JsonPatchError } = fastJsonPatch;
export const MAX_JSON_PATCH_OPERATIONS = 10000;

function describe(e: InstanceType<typeof JsonPatchError>, op: Operation | undefined): string {
  const path = op?.path ?? '';
  switch (e.name) {
    case 'TEST_OPERATION_FAILED':
      return `testing value ${path} failed: test failed`;
    case 'OPERATION_PATH_CANNOT_ADD':
    case 'OPERATION_PATH_UNRESOLVABLE':
      if (op?.op === 'remove') return `unable to remove nonexistent key: ${path}: missing value`;
      if (op?.op === 'replace')
        return `replace operation does not apply: doc is missing key: ${path}: missing value`;
      return (
        `${op?.op ?? 'operation'} operation does not apply: doc is missing path: ` +
        `${JSON.stringify(path)}: missing value`
      );
    case 'OPERATION_FROM_UNRESOLVABLE':
      return (
        `${op?.op ?? 'operation'} operation does not apply: doc is missing from path: ` +
        `${JSON.stringify(op !== undefined && 'from' in op ? op.from : '')}: missing ` +
        `value`
      );
    case 'OPERATION_OP_INVALID':
      return `Unexpected kind: ${String(op?.op)}`;
    case 'OPERATION_VALUE_REQUIRED':
      return `${op?.op ?? 'operation'} operation on ${path}: missing value`;
    case 'OPERATION_PATH_INVALID':
      return `invalid path ${JSON.stringify(path)}`;
    case 'OPERATION_VALUE_OUT_OF_BOUNDS':
    case 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX':
      return `${op?.op ?? 'operation'} operation does not apply: index out of bounds: ${path}`;
    default:
      return e.message.split('\n')[0] ?? e.message;
  }
}

export function applyJsonPatch(doc: Record<string, unknown>, patchBody: string): unknown {
  let ops: unknown;
  try {
    ops = parseJsonPatchBody(patchBody);
  } catch (e) {
    // Nesting beyond the limit: the reference's kjson.UnmarshalStrict error (fieldValidation Warn,
    // the default).
    if (e instanceof InputLimitError)
      throw badRequest(`error decoding patch: ${limitText(patchBody, e, false)}`);
    throw badRequest(
      `invalid JSON patch: ${jsonSyntaxMessage(e instanceof InputSyntaxError ? e.cause : e)}`,
    );
  }
  if (!Array.isArray(ops))
    throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new PatchError({
      status: 413,
      reason: 'RequestEntityTooLarge',
      message:
        `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, ` +
        `got ${ops.length}`,
    });
  }
  for (const op of ops) {
    if (op === null || typeof op !== 'object' || Array.isArray(op))
      throw badRequest(
        'json: cannot unmarshal into Go value of type jsonpatch.Operation: each ' +
          'operation must be an object',
      );
  }
  const typed = ops as Operation[];
  let out: unknown = structuredClone(doc);
  let copied = 0;
  typed.forEach((op, index) => {
    try {
      copied += checkOperationGrowth(out, op, copied);
      out = applyOperation(out, op, true, true, true, index).newDocument;
    } catch (e) {
      if (e instanceof PatchError) throw e;
      if (e instanceof JsonPatchError)
        throw new PatchError({ status: 422, reason: 'Invalid', message: describe(e, op) });
      throw new PatchError({ status: 422, reason: 'Invalid', message: userMessage(e) });
    }
  });
  return out;
}

function pointerDepth(pointer: unknown): number {
  return typeof pointer === 'string' && pointer !== '' ? pointer.split('/').length - 1 : 0;
}

/**
 * What `op` may add to the document, checked before it is applied: a `copy` counts its value's
 * JSON size against JSON_PATCH_MAX_COPY_BYTES (the reference's message), and no operation may nest
 * the object deeper than the body limit (the patched object must still be readable back).
 * Returns the bytes a copy adds.
 */
function checkOperationGrowth(docNow: unknown, op: Operation, copiedSoFar: number): number {
  if (op.op !== 'add' && op.op !== 'replace' && op.op !== 'copy' && op.op !== 'move') return 0;
  let value: unknown;
  if (op.op === 'copy' || op.op === 'move') {
    try {
      value = getValueByPointer(docNow, op.from);
    } catch {
      return 0; // fast-json-patch reports the unresolvable `from`
    }
  } else value = op.value;
  if (op.op === 'copy') {
    // a parsed document holds only JSON values, so only an absent one has no text
    const bytes = value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value), 'utf8');
    if (copiedSoFar + bytes > JSON_PATCH_MAX_COPY_BYTES) {
      throw new PatchError({
        status: 422,
        reason: 'Invalid',
        message:
          `Unable to copy, the accumulated size increase of copy is ` +
          `${copiedSoFar + bytes}, exceeding the limit ${JSON_PATCH_MAX_COPY_BYTES}`,
      });
    }
    checkNesting(op, value);
    return bytes;
  }
  checkNesting(op, value);
  return 0;
}

/** No operation may nest the object deeper, or make it larger, than a request body may be. */
function checkNesting(op: Operation, value: unknown): void {
  const size = measureValue(value, API_BODY_LIMITS.maxNodes);
  if (
    size.nodes > API_BODY_LIMITS.maxNodes ||
    pointerDepth(op.path) + size.depth > API_BODY_LIMITS.maxDepth
  ) {
    throw new PatchError({
      status: 422,
      reason: 'Invalid',
      message:
        `${op.op} operation on ${op.path}: the patched object would be nested more than ` +
        `${API_BODY_LIMITS.maxDepth} levels or hold more than ${API_BODY_LIMITS.maxNodes} ` +
        `values (the limits of a request body)`,
    });
  }
}
