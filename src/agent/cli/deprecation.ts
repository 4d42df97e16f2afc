// Deprecation notices for flags with a `cfg` or `dep` note, in the reference's words, once per
// flag and in command-line order. The caller prints them on stderr; the values still apply.
import type { ParsedFlags } from './flag-spec.js';
import { flagByName } from './flags.js';

export const CFG_DEPRECATION =
  "This parameter should be set via the config file specified by the nodeagent's --config flag.";

export function deprecationWarnings(parsed: ParsedFlags): string[] {
  const out: string[] = [];
  for (const name of new Set(parsed.order)) {
    const note = flagByName(name)?.note;
    if (note === undefined) continue;
    out.push(
      `Flag --${name} has been deprecated, ${note.kind === 'cfg' ? CFG_DEPRECATION : note.reason}`,
    );
  }
  return out;
}
