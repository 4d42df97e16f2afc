// The fast path of config and platconfig decoding: js-yaml (plain scalars as go-yaml v2 reads them,
// duplicate keys refused) over a text that has no anchors or aliases and cannot nest deeper than
// CONFIG_FILE_LIMITS allows (js-yaml recurses without a bound and expands aliases). Anything else
// answers undefined: the caller takes the `yaml` library, which bounds both and reports line and
// column.
import jsyaml from 'js-yaml';
import { CONFIG_FILE_LIMITS } from './parse-limits.js';
import { yamlNestingUpperBound } from './nesting-estimate.js';
import { GO_LOAD_SCHEMA } from './go-yaml-jsyaml.js';

/**
 * A plain key that go-yaml v2 resolves to other than a string (a number, a bool such as `on`, a
 * null): its JSON key is sigs.k8s.io/yaml's (or refused), which the full parser words. Linear: a
 * key's text stops at a separator, so no start scans past the next one.
 */
const NON_STRING_KEY = new RegExp(
  String.raw`(?:^|[\s,[{])(?:[-+.0-9][^\s:,[\]{}]*|[yYnN]|yes|Yes|YES|no|No|NO|true|True|TRUE|` +
    String.raw`false|False|FALSE|on|On|ON|off|Off|OFF)\s*:(?:\s|$)`,
  'm',
);

/**
 * Where js-yaml and `yaml` read the same text differently (fast-yaml-agreement.test.ts fuzzes
 * this), the full parser reads it: tabs in indentation (an error to `yaml`), directives
 * (`%YAML 1.2` is refused there, as go-yaml refuses it), tags, complex keys (`? `), merge keys
 * (`<<`, which `yaml` merges), null, empty and collection keys, a document marker with text right
 * after it, a block scalar's explicit indentation, a comment right after a quoted scalar or a flow
 * collection (an error to `yaml`), and the numbers only one of them takes: 0b binary, signed hex
 * and octal, a signed fraction without a leading digit (`-.5`), exponents past a double's range.
 */
const DIVERGENT = new RegExp(
  String.raw`^ *\t|^%|(?:^|[\s,[{])[!?]|<<|(?<![\w.])[-+]?0[bBoOxX]|(?<![\w.])[-+]\.|` +
    String.raw`\d\.?[eE][-+]?\d{3}|(?:^|[\s,[{])(?:~|null|Null|NULL)?\s*:(?:\s|$)|['"}\]]#|` +
    String.raw`[|>][-+]?[1-9]|[}\]] *:(?:\s|$)|^(?:---|\.\.\.)\S`,
  'm',
);

/**
 * The decoded value of a clean text, as `{ value }`; undefined when the full parser must read it.
 */
export function fastYamlValue(text: string): { value: unknown } | undefined {
  if (text.includes('&') || text.includes('*') || DIVERGENT.test(text) || NON_STRING_KEY.test(text))
    return undefined;
  if (yamlNestingUpperBound(text) > CONFIG_FILE_LIMITS.maxDepth) return undefined;
  let value: unknown;
  try {
    value = jsyaml.load(text, { schema: GO_LOAD_SCHEMA });
  } catch {
    return undefined;
  }
  return wellWithinLimits(value) ? { value } : undefined;
}

/**
 * A value at less than half of CONFIG_FILE_LIMITS, with no .inf or .nan (no JSON form: refused by
 * the full parser), in values, keys per object and string length: near or over a limit, the full
 * parser measures the text as it counts and words the refusal.
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
    if (typeof v === 'number' && !Number.isFinite(v)) return false;
    if (v === null || typeof v !== 'object') continue;
    const keys = Object.keys(v);
    if (keys.length > L.maxKeysPerObject / 2 || keys.some(long)) return false;
    const values: unknown[] = Object.values(v);
    for (const x of values) stack.push(x);
  }
  return true;
}
