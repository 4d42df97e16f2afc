// Decoding a create/update body and applying fieldValidation (Ignore, Warn, Strict) to the
// unknown and duplicate fields the decoder reports.

import {
  decodeBody,
  DecodeError,
  pruneUnknownFields,
  type DecodeOptions,
  type DecodeResult,
} from '../decode.js';
import { badRequest } from '../status.js';
import type { Obj } from '../registry/types.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface Decoded {
  readonly object: Obj;
  readonly unknownFields: readonly string[];
  readonly duplicateFields: readonly string[];
}

/**
 * Runs decode.ts's decodeBody: on the main thread, or elsewhere (--worker-threads: a worker
 * thread's, workers/decode-job.ts), with the same result and the same DecodeError.
 */
export type BodyDecoder = (o: DecodeOptions) => Promise<DecodeResult>;

const ON_THIS_THREAD: BodyDecoder = (o) => Promise.resolve(decodeBody(o));

export async function decodeObject(
  args: DecodeOptions,
  decoder: BodyDecoder = ON_THIS_THREAD,
): Promise<Decoded> {
  try {
    return await decoder(args);
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
