// --vmodule: `pattern=N,...` (per-file verbosity, text format only). The result is the config
// file's logging.vmodule list of {filePattern, verbosity}.
import { invalidValue } from './error.js';

export interface VModuleItem {
  readonly filePattern: string;
  readonly verbosity: number;
}

export const VMODULE_ACCEPTED =
  'comma-separated <file pattern>=<verbosity> pairs, such as server=2,pod*=4 (verbosity ' +
  '0 to 2147483647)';

export function parseVModule(s: string, flag?: string): VModuleItem[] {
  const out: VModuleItem[] = [];
  if (s === '') return out;
  for (const pat of s.split(',')) {
    const parts = pat.split('=');
    const pattern = parts[0] ?? '';
    const level = parts[1] ?? '';
    if (
      parts.length !== 2 ||
      pattern === '' ||
      !/^[0-9]+$/.test(level) ||
      Number(level) > 2147483647
    ) {
      throw invalidValue(
        s,
        flag,
        `syntax error: expect comma-separated list of filename=N, got ${JSON.stringify(pat)}`,
        VMODULE_ACCEPTED,
      );
    }
    out.push({ filePattern: pattern, verbosity: Number(level) });
  }
  return out;
}
