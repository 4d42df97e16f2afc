// The one way both programs parse JSON and YAML that comes from outside (files, manifests, URLs,
// request bodies): every ParseLimits bound is checked without recursion before the text reaches a
// parser or a composer that recurses or allocates per node, and a bound passed is an
// InputLimitError naming the limit, the input and where. JSON is pre-scanned in one linear pass and
// then read by JSON.parse (iterative in V8); YAML goes through the `yaml` lexer (a guard on flow
// nesting, node count and string length), its CST parser (iterative) and an iterative walk of the
// CST (exact nesting, keys, documents), and is composed only when all of that is within bounds.

import { InputLimitError, InputSyntaxError } from './errors.js';

export {
  checkSize,
  limitError,
  pathText,
  type BoundedInput,
  type PathSegment,
} from './bounded-input.js';
export {
  API_BODY_LIMITS,
  JSON_PATCH_LIMITS,
  CONFIG_FILE_LIMITS,
  DEFAULT_PARSE_LIMITS,
  MANIFEST_LIMITS,
  type ParseLimits,
  type ParseLimitName,
} from './parse-limits.js';
export { yamlNestingUpperBound } from './nesting-estimate.js';
export { measureValue, type ValueSize } from './bounded-value.js';
export { parseJsonBounded } from './bounded-json.js';
export {
  parseYamlBounded,
  parseYamlValueBounded,
  yamlToJsBounded,
  type BoundedYamlOptions,
} from './bounded-yaml.js';

/**
 * True for errors of this module (what callers map to a 4xx, a skipped file or a fatal config
 * error).
 */
export function isBoundedParseError(e: unknown): e is InputLimitError | InputSyntaxError {
  return e instanceof InputLimitError || e instanceof InputSyntaxError;
}
