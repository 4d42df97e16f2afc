// The fast path of config and platconfig decoding: js-yaml (core schema, duplicate keys refused) over a text
// that has no anchors or aliases and cannot nest deeper than CONFIG_FILE_LIMITS allows (js-yaml
// recurses without a bound and expands aliases). Anything else answers undefined: the caller takes
// the `yaml` library, which bounds both and reports line and column.
import jsyaml from 'js-yaml';
import { CONFIG_FILE_LIMITS } from './parse-limits.js';
import { yamlNestingUpperBound } from './nesting-estimate.js';

/**
 * Where js-yaml and `yaml` read the same text differently (fast-yaml-agreement.test.ts fuzzes
 * this), the full parser reads it: tabs in indentation (an error to `yaml`), directives
 * (`%YAML 1.1` changes `yaml`'s scalars), tags, complex keys (`? `), merge keys (`<<`, which
 * `yaml` merges), null, empty and collection keys, a document marker with text right after it, a
 * block scalar's explicit indentation, a comment right after a quoted scalar or a flow collection
 * (an error to `yaml`), and the numbers only one of them takes: 0b binary, signed hex and octal,
 * a signed fraction without a leading digit (`-.5`), exponents past a double's range.
 */
const DIVERGENT = /^ *\t|^%|(?:^|[\s,[{])[!?]|<<|(?<![\w.])[-+]?0[bBoOxX]|(?<![\w.])[-+]\.|\d\.?[eE][-+]?\d{3}|(?:^|[\s,[{])(?:~|null|Null|NULL)?\s*:(?:\s|$)|['"}\]]#|[|>][-+]?[1-9]|[}\]] *:(?:\s|$)|^(?:---|\.\.\.)\S/m;

/** The decoded value of a clean text, as `{ value }`; undefined when the full parser must read it. */
export function fastYamlValue(text: string): { value: unknown } | undefined {
  if (text.includes('&') || text.includes('*') || DIVERGENT.test(text)) return undefined;
  if (yamlNestingUpperBound(text) > CONFIG_FILE_LIMITS.maxDepth) return undefined;
  let value: unknown;
  try {
    value = jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA });
  } catch {
    return undefined;
  }
  return wellWithinLimits(value) ? { value } : undefined;
}

/**
 * A value at less than half of CONFIG_FILE_LIMITS in values, keys per object and string length:
 * near or over a limit, the full parser measures the text as it counts and words the refusal.
 */
function wellWithinLimits(value: unknown): boolean {
  const L = CONFIG_FILE_LIMITS;
  const long = (s: string): boolean => s.length > L.maxStringLength / 2;
  let nodes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (++nodes > L.maxNodes / 2) return false;
    if (typeof v === 'string' && long(v)) return false;
    if (v === null || typeof v !== 'object') continue;
    const keys = Object.keys(v);
    if (keys.length > L.maxKeysPerObject / 2 || keys.some(long)) return false;
    for (const k of keys) stack.push((v as Record<string, unknown>)[k]);
  }
  return true;
}
