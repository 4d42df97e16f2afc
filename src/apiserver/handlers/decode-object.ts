// Decoding a create/update body and applying fieldValidation (Ignore, Warn, Strict) to the
// unknown and duplicate fields the decoder reports.

import { decodeBody, DecodeError, pruneUnknownFields } from '../decode.js';
import { badRequest } from '../status.js';
import type { Obj } from '../registry/types.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface Decoded {
  readonly object: Obj;
  readonly unknownFields: readonly string[];
  readonly duplicateFields: readonly string[];
}

export function decodeObject(args: {
  body: string;
  contentType: string;
  kind: string;
  apiVersion: string;
}): Decoded {
  try {
    return decodeBody(args);
  } catch (err) {
    if (err instanceof DecodeError) throw badRequest(err.message);
    throw err;
  }
}

/** Applies the fieldValidation directive: a Strict error listing every problem, or warnings. */
export function applyFieldValidation(
  d: Decoded,
  mode: FieldValidation,
  kind: string,
  version: string,
  warnings: string[],
): void {
  const problems = [
    ...d.unknownFields.map((f) => `unknown field "${f}"`),
    ...d.duplicateFields.map((f) => `duplicate field "${f}"`),
  ];
  if (problems.length === 0) return;
  if (mode === 'Strict') {
    throw badRequest(
      `${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding ` +
        `error: ${problems.join(', ')}`,
    );
  }
  if (mode === 'Warn') warnings.push(...problems);
  if (d.unknownFields.length > 0) pruneUnknownFields(d.object, kind);
}
