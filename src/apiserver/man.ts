// man/plat-apiserver.1, rendered from the flag table and the help sections that --help prints
// (help.ts): one source. scripts/gen-man.mjs writes it; a test fails when the committed page
// differs. Deterministic: no dates, only the package version.
import { bold, italic, troffEscape } from '../common/cli/troff.js';
import { packageVersion } from '../common/version.js';
import type { ExtraFlag } from './flags.js';
import { API_SERVER_DESCRIPTION, sectionedFlags, sectionHeading } from './help.js';

function defaultOf(value: string, def: string | undefined): string {
  if (def === undefined || def === '' || value === '' || value.startsWith('version')) return '';
  return value === 'string' || value === 'ip' ? ` (default "${def}")` : ` (default ${def})`;
}

export function renderApiServerManPage(extra: readonly ExtraFlag[]): string {
  const version = packageVersion().replace(/^v/, '');
  const out = [
    `.TH PLAT\\-APISERVER 1 "" "plat-apiserver ${version}" "User Commands"`,
    '.nh',
    '.SH NAME',
    'plat\\-apiserver \\- a lightweight control plane speaking the Kubernetes API server protocol',
    '.SH SYNOPSIS',
    `${bold('plat-apiserver')} [${italic('flags')}]`,
    '.br',
    `${bold('plat-apiserver token create')} [${italic('flags')}]`,
    '.SH DESCRIPTION',
    troffEscape(API_SERVER_DESCRIPTION),
    '.SH OPTIONS',
  ];
  for (const { section, defs } of sectionedFlags(extra)) {
    out.push('.SS', troffEscape(sectionHeading(section).replace(/:$/, '')));
    for (const f of defs) {
      const short = f.short === undefined ? '' : `${bold(`-${f.short}`)}, `;
      const head = `${short}${bold(`--${f.name}`)}`;
      out.push('.TP', f.value === '' ? head : `${head} ${italic(f.value)}`);
      out.push(troffEscape(`${f.help}${defaultOf(f.value, f.def)}`));
    }
  }
  out.push(
    '.SH EXIT STATUS',
    troffEscape(
      '0 when the server stops cleanly on SIGTERM or SIGINT, and after --help and ' +
        '--version. 1 for an unknown flag, a bad value or a failed start; the reason is ' +
        'printed on standard error.',
    ),
    '.SH SEE ALSO',
    `${bold('nodeagent')}(1)`,
  );
  return `${out.join('\n')}\n`;
}
