// Request bodies and patches are parsed within API_BODY_LIMITS (src/common/util/bounded-parse.ts);
// this is how plat-apiserver words a bound passed. Nesting is answered as the reference answers
// nesting beyond its own limit (Go's encoding/json: `invalid character '{' exceeded max depth`;
// go-yaml v2 through sigs.k8s.io/yaml: `error converting YAML to JSON: yaml: exceeded max depth of
// 10000`, with our limit in place of 10000); the reference appends the first 30 bytes of the
// body, which we leave out (a body may begin with a token). Every other bound has no counterpart
// there (the reference only caps the body at 3 MiB) and is answered with our own message naming
// the limit and the byte offset.

import type { InputLimitError } from '../common/util/errors.js';
import {
  API_BODY_LIMITS,
  JSON_PATCH_LIMITS,
  parseJsonBounded,
  parseYamlBounded,
  yamlToJsBounded,
  type BoundedInput,
} from '../common/util/bounded-parse.js';
import type { Document } from 'yaml';

export const BODY_INPUT: BoundedInput = { limits: API_BODY_LIMITS, source: 'request body' };

/** The reference's syntax error for JSON nested too deep (the opening character at the limit). */
export function jsonDepthText(body: string, e: InputLimitError): string {
  const c = Buffer.from(body, 'utf8')[e.offset];
  return `invalid character '${c === 0x5b ? '[' : '{'}' exceeded max depth`;
}

/** go-yaml v2's message for YAML nested too deep (with `line N: ` when not on the first line). */
export function yamlDepthText(body: string, e: InputLimitError): string {
  const line = Buffer.from(body, 'utf8').subarray(0, e.offset).toString('utf8').split('\n').length;
  return `yaml: ${line > 1 ? `line ${line}: ` : ''}exceeded max depth of ${e.max}`;
}

/** The text for a bound passed: the reference's for nesting, ours (limit, offset) for the rest. */
export function limitText(body: string, e: InputLimitError, yaml: boolean): string {
  if (yaml && e.limit === 'maxAliases')
    return 'error converting YAML to JSON: yaml: document contains excessive aliasing';
  if (e.limit !== 'maxDepth') return e.message;
  return yaml ? `error converting YAML to JSON: ${yamlDepthText(body, e)}` : jsonDepthText(body, e);
}

/** JSON.parse of a body within bounds (throws InputLimitError or InputSyntaxError). */
export function parseJsonBody(body: string): unknown {
  return parseJsonBounded(body, BODY_INPUT);
}

/** A JSON patch body (room for the reference's 10,000 operations) within bounds. */
export function parseJsonPatchBody(body: string): unknown {
  return parseJsonBounded(body, { limits: JSON_PATCH_LIMITS, source: 'request body' });
}

/** The single YAML document of a body within bounds, composed (throws InputLimitError). */
export function parseYamlBody(body: string): Document.Parsed | undefined {
  return parseYamlBounded(body, {
    ...BODY_INPUT,
    yamlOptions: { uniqueKeys: false, prettyErrors: false },
  })[0];
}

export function yamlBodyToJs(doc: Document.Parsed, body: string): unknown {
  return yamlToJsBounded(doc, BODY_INPUT, body);
}
