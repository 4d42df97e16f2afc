// `plat-apiserver --validate-config FILE... [--platform-domain D] [--anonymous-auth[=B]]`:
// validates configuration files of any of the five kinds, prints every error, exits 1 or 0.
import { DEFAULT_PLATFORM_DOMAIN } from '../../common/names.js';
import { validateConfigFiles } from './load.js';

export function isValidateConfigInvocation(argv: readonly string[]): boolean {
  return argv.some(
    (a) =>
      a === '--validate-config' ||
      a === '--validate_config' ||
      a.startsWith('--validate-config=') ||
      a.startsWith('--validate_config='),
  );
}

export interface ValidateCommandIo {
  out(text: string): void;
  err(text: string): void;
}

export function runValidateConfig(argv: readonly string[], io: ValidateCommandIo): number {
  const files: string[] = [];
  let platformDomain = DEFAULT_PLATFORM_DOMAIN;
  let anonymousAuthFlagSet = false;
  for (let i = 0; i < argv.length; i++) {
    const a = (argv[i] ?? '').replace(/^--([a-z_-]+)/, (m) => m.replace(/_/g, '-'));
    if (a === '--validate-config') continue;
    if (a.startsWith('--validate-config=')) files.push(a.slice('--validate-config='.length));
    else if (a === '--platform-domain') platformDomain = argv[++i] ?? platformDomain;
    else if (a.startsWith('--platform-domain='))
      platformDomain = a.slice('--platform-domain='.length);
    else if (a === '--anonymous-auth' || a.startsWith('--anonymous-auth='))
      anonymousAuthFlagSet = true;
    else if (a.startsWith('--')) {
      // Other server flags may be present (the same command line as a real start); skip their
      // values.
      if (!a.includes('=') && argv[i + 1] !== undefined && !(argv[i + 1] ?? '').startsWith('-'))
        i++;
    } else files.push(a);
  }
  if (files.length === 0) {
    io.err(
      'plat-apiserver: --validate-config needs at least one file: plat-apiserver ' +
        '--validate-config FILE...\n',
    );
    return 1;
  }
  const r = validateConfigFiles(files, { platformDomain, anonymousAuthFlagSet });
  if (!r.ok) {
    for (const e of r.errors) io.err(`${e}\n`);
    io.err(`plat-apiserver: ${r.errors.length} error(s) in ${files.length} file(s)\n`);
    return 1;
  }
  files.forEach((f, i) => io.out(`${f}: valid ${r.kinds[i] ?? ''}\n`));
  return 0;
}
