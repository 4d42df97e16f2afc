// Decoding a create/update body and applying fieldValidation (Ignore, Warn, Strict) to the
// unknown and duplicate fields the decoder reports.

import { parse as parseYaml } from 'yaml';
import { badRequest } from '../status.js';
import type { Obj } from '../registry/types.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface Decoded {
  readonly object: Obj;
  readonly unknownFields: readonly string[];
  readonly duplicateFields: readonly string[];
}

export function decodeObject(args: { body: string; contentType: string; kind: string; apiVersion: string }): Decoded {
  let parsed: unknown;
  try {
    parsed = args.contentType === 'application/yaml' ? parseYaml(args.body) : JSON.parse(args.body);
  } catch (err) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${args.kind}): couldn't get version/kind; json parse error: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest(`the object provided is unrecognized (must be of type ${args.kind}): couldn't get version/kind; json parse error: not an object`);
  }
  return { object: parsed as Obj, unknownFields: [], duplicateFields: [] };
}

/** Applies the fieldValidation directive: a Strict error listing every problem, or warnings. */
export function applyFieldValidation(d: Decoded, mode: FieldValidation, kind: string, version: string, warnings: string[]): void {
  const problems = [...d.unknownFields.map((f) => `unknown field "${f}"`), ...d.duplicateFields.map((f) => `duplicate field "${f}"`)];
  if (problems.length === 0 || mode === 'Ignore') return;
  if (mode === 'Strict') {
    throw badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${problems.join(', ')}`);
  }
  warnings.push(...problems);
}
