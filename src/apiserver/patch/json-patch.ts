// JSON Patch (RFC 6902) through fast-json-patch, with the reference's status codes: a body that
// is not a JSON array of operations is 400; an operation that cannot be applied is 422; more than
// 10,000 operations is 413.

import fastJsonPatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { PatchError, badRequest } from './errors.js';
import { jsonSyntaxMessage } from '../decode.js';

const { applyPatch, JsonPatchError } = fastJsonPatch;
export const MAX_JSON_PATCH_OPERATIONS = 10000;

function describe(e: InstanceType<typeof JsonPatchError>, op: Operation | undefined): string {
  const path = op?.path ?? '';
  switch (e.name) {
    case 'TEST_OPERATION_FAILED':
      return `testing value ${path} failed: test failed`;
    case 'OPERATION_PATH_CANNOT_ADD':
    case 'OPERATION_PATH_UNRESOLVABLE':
      if (op?.op === 'remove') return `unable to remove nonexistent key: ${path}: missing value`;
      if (op?.op === 'replace') return `replace operation does not apply: doc is missing key: ${path}: missing value`;
      return `${op?.op ?? 'operation'} operation does not apply: doc is missing path: ${JSON.stringify(path)}: missing value`;
    case 'OPERATION_FROM_UNRESOLVABLE':
      return `${op?.op ?? 'operation'} operation does not apply: doc is missing from path: ${JSON.stringify((op as { from?: string } | undefined)?.from ?? '')}: missing value`;
    case 'OPERATION_OP_INVALID':
      return `Unexpected kind: ${String((op as { op?: unknown } | undefined)?.op)}`;
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
    ops = JSON.parse(patchBody);
  } catch (e) {
    throw badRequest(`invalid JSON patch: ${jsonSyntaxMessage(e)}`);
  }
  if (!Array.isArray(ops)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new PatchError({ status: 413, reason: 'RequestEntityTooLarge', message: `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}` });
  }
  for (const op of ops) {
    if (op === null || typeof op !== 'object' || Array.isArray(op)) throw badRequest('json: cannot unmarshal into Go value of type jsonpatch.Operation: each operation must be an object');
  }
  const typed = ops as Operation[];
  try {
    return applyPatch(structuredClone(doc), typed, true, true, true).newDocument;
  } catch (e) {
    if (e instanceof JsonPatchError) {
      const idx = typeof e.index === 'number' ? e.index : -1;
      throw new PatchError({ status: 422, reason: 'Invalid', message: describe(e, typed[idx]) });
    }
    throw new PatchError({ status: 422, reason: 'Invalid', message: (e as Error).message });
  }
}
