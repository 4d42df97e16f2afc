// man/nodeagent.1, rendered from the flag table (scripts/gen-man.mjs writes it; a test checks
// that the committed file matches). Deterministic: no dates, only the package version.
import { KNOWN_FEATURE_GATES } from './feature-gates.js';
import {
  defaultPhrase,
  flagSignature,
  markers,
  MARKER_LEGEND,
  PRECEDENCE_TEXT,
  PROGRAM_SUMMARY,
  sortedFlags,
  valueName,
} from './describe.js';
import { packageVersion } from './version.js';
import { bold, italic, troffEscape } from '../../common/cli/troff.js';

export { troffEscape } from '../../common/cli/troff.js';

const b = bold;
const i = italic;

/** NAME, SYNOPSIS and DESCRIPTION. */
function headSections(version: string): string[] {
  return [
    `.TH NODEAGENT 1 "" "nodeagent ${version}" "User Commands"`,
    '.nh',
    '.SH NAME',
    'nodeagent \\- the node agent that runs on every node of a cluster',
    '.SH SYNOPSIS',
    '.B nodeagent',
    `[${i('flags')}]`,
    '.SH DESCRIPTION',
    troffEscape(PROGRAM_SUMMARY),
    '.PP',
    troffEscape(PRECEDENCE_TEXT),
    '.PP',
    troffEscape(
      'Without --config, four flag defaults of earlier releases apply: anonymous authentication ' +
        'on, the token webhook off, authorization AlwaysAllow and read-only port 10255. With a ' +
        'config file, the file defaults apply instead.',
    ),
    '.PP',
    troffEscape(
      'nodeagent --print-config prints the effective configuration, every field included, as a ' +
        'NodeAgentConfiguration YAML document followed by a NodeAgentFlags document with the ' +
        'flag-only settings, and exits; with errors it prints every one of them and exits 1.',
    ),
  ];
}

/** OPTIONS: how values are written, then one entry per flag. */
function optionsSection(): string[] {
  const out = [
    '.SH OPTIONS',
    troffEscape(
      'Flags take their value as --name=value or --name value; an underscore in a name is read ' +
        'as a hyphen. Booleans are given bare (--name) or as --name=true and --name=false (also ' +
        '1, t, T, TRUE, True, 0, f, F, FALSE, False). Durations use Go syntax (300ms, 1.5h, ' +
        '2m0s); quantities the resource syntax (10Mi, 1G, 500m).',
    ),
  ];
  for (const f of sortedFlags()) {
    const { short } = flagSignature(f);
    const vn = valueName(f);
    const head =
      `${short === '' ? '' : `${b(short)}, `}${b(`--${f.name}`)}` + (vn === '' ? '' : ` ${i(vn)}`);
    const body = [f.help, defaultPhrase(f), ...markers(f)].filter((s) => s !== '').join(' ');
    out.push('.TP', head, troffEscape(body));
  }
  return out;
}

/** MARKERS and FEATURE GATES. */
function legendSections(): string[] {
  const out = ['.SH MARKERS'];
  for (const [m, meaning] of MARKER_LEGEND) out.push('.TP', b(m), troffEscape(meaning));
  out.push(
    '.SH FEATURE GATES',
    troffEscape(
      'Known to --feature-gates and the featureGates field, with their stage and default:',
    ),
  );
  for (const g of KNOWN_FEATURE_GATES) {
    const locked = g.locked === true ? ', locked to its default' : '';
    out.push('.TP', b(g.name), troffEscape(`${g.stage}, default ${g.default}${locked}`));
  }
  return out;
}

/** EXIT STATUS, FILES, EXAMPLES and SEE ALSO. */
function tailSections(): string[] {
  return [
    '.SH EXIT STATUS',
    troffEscape(
      '0 when the agent stops cleanly, and after --help, --version and a successful ' +
        '--print-config. 1 for an unknown flag, a bad value, an invalid configuration, a failed ' +
        'host check or a fatal error; the reason is printed as one line on standard error.',
    ),
    '.SH FILES',
    '.TP',
    b('/var/lib/nodeagent'),
    troffEscape('default --root-dir'),
    '.TP',
    b('/var/lib/nodeagent/pki'),
    troffEscape('default --cert-dir: client and serving certificates and keys'),
    '.SH EXAMPLES',
    '.nf',
    troffEscape(
      'nodeagent --config=/etc/nodeagent/config.yaml --config-dir=/etc/nodeagent/config.d \\',
    ),
    troffEscape(
      '    --platconfig=/etc/nodeagent/platconfig ' +
        '--bootstrap-platconfig=/etc/nodeagent/bootstrap-platconfig',
    ),
    troffEscape('nodeagent --config=/etc/nodeagent/config.yaml --print-config'),
    '.fi',
    '.SH SEE ALSO',
    `${b('plat-apiserver')}(1)`,
  ];
}

export function renderManPage(): string {
  const version = packageVersion().replace(/^v/, '');
  const out = [
    ...headSections(version),
    ...optionsSection(),
    ...legendSections(),
    ...tailSections(),
  ];
  return `${out.join('\n')}\n`;
}
