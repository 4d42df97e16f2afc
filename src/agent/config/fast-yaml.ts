// The fast path of config decoding: js-yaml (core schema, duplicate keys refused) over a text
// that has no anchors or aliases and cannot nest deeper than CONFIG_FILE_LIMITS allows (js-yaml
// recurses without a bound and expands aliases). Anything else answers undefined: the caller takes
// the `yaml` library, which bounds both and reports line and column.
import jsyaml from 'js-yaml';
import { CONFIG_FILE_LIMITS } from '../../common/util/parse-limits.js';
import { yamlNestingUpperBound } from '../../common/util/nesting-estimate.js';

/** The decoded value of a clean text, as `{ value }`; undefined when the full parser must read it. */
export function fastYamlValue(text: string): { value: unknown } | undefined {
  if (text.includes('&') || text.includes('*')) return undefined;
  if (yamlNestingUpperBound(text) > CONFIG_FILE_LIMITS.maxDepth) return undefined;
  try {
    return { value: jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA }) };
  } catch {
    return undefined;
  }
}
