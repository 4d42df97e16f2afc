// Platconfig text through the `yaml` library: the full parser (within CONFIG_FILE_LIMITS, with line
// and column in its errors) and the writer. platconfig.ts loads this module only when it writes a
// file or reads a text its fast path (common/util/fast-yaml.ts) does not take, so the agent's
// bootstrap does not load `yaml` before its client certificate is on disk. (A dynamic import() of
// the CommonJS `yaml` itself would keep only its default export in the bundle.)
import { stringify } from 'yaml';
import { InputLimitError, PlatconfigError, userMessage } from '../util/errors.js';
import { CONFIG_FILE_LIMITS, parseYamlValueBounded } from '../util/bounded-parse.js';
import { LocatedYamlError } from '../util/yaml-located-error.js';
import { goYamlWriteTags } from '../util/go-yaml-tags.js';

/**
 * The YAML text of a platconfig document: a string that go-yaml v2 (how it is read back) could take
 * for another type is quoted.
 */
export function encodePlatconfigYaml(config: object): string {
  return stringify(config, { customTags: goYamlWriteTags });
}

/** The decoded document; a PlatconfigError naming `file` when it is over a bound or not YAML. */
export function decodePlatconfigYaml(text: string, file: string): unknown {
  try {
    return parseYamlValueBounded(text, {
      limits: CONFIG_FILE_LIMITS,
      source: `platconfig ${file}`,
    });
  } catch (err) {
    if (err instanceof InputLimitError)
      throw new PlatconfigError(err.message, { file, cause: err });
    const why =
      err instanceof LocatedYamlError ? err.located : (userMessage(err).split('\n')[0] ?? '');
    throw new PlatconfigError(`platconfig ${file} is not valid YAML: ${why}`, { file });
  }
}
