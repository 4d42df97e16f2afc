// The reference part of docs/configuration.md, rendered from the flag table, the configuration
// fields without a flag and the reasons some fields take no effect: one source for --help, the
// man page and the docs. scripts/gen-config-doc.mjs writes it between the page's markers; a unit
// test fails when the committed page differs.
import { FILE_ONLY_FIELDS } from '../config/file-only-fields.js';
import { KUBELET_FIELD_RENAMES } from '../config/kubelet-config.js';
import type { FlagSpec } from './flag-spec.js';
import { INERT_FIELDS } from './inert-options.js';
import { defaultPhrase, markers, MARKER_LEGEND, sortedFlags, valueName } from './describe.js';
import { ourFlagName } from './reference-flags.js';

export const CONFIG_DOC_BEGIN =
  '<!-- BEGIN GENERATED: npm run docs (scripts/gen-config-doc.mjs) -->';
export const CONFIG_DOC_END = '<!-- END GENERATED -->';

/** A table cell: pipes escaped, never empty. */
function cell(text: string): string {
  return text === '' ? '' : text.replaceAll('|', '\\|');
}

const code = (text: string): string => (text === '' ? '' : `\`${text}\``);

/** The kubelet's spelling of one of our flags (`--kubeconfig` for `--platconfig`), or ''. */
export function referenceSpelling(name: string): string {
  const candidate = name.replace(/^nodeagent-/, 'kubelet-').replace(/plat/g, 'kube');
  return candidate !== name && ourFlagName(candidate) === name ? `--${candidate}` : '';
}

/** The KubeletConfiguration field name for one of our config paths, when it differs. */
function referenceField(path: string): string {
  const head = path.split('.')[0] ?? path;
  const renamed = Object.entries(KUBELET_FIELD_RENAMES).find(([, ours]) => ours === head);
  return renamed === undefined ? '' : [renamed[0], ...path.split('.').slice(1)].join('.');
}

function flagRow(f: FlagSpec): string {
  const flag = [f.short === undefined ? '' : `-${f.short}, `, `--${f.name}`].join('');
  const field = f.configPath ?? '';
  const reference = [referenceSpelling(f.name), referenceField(field)].filter((s) => s !== '');
  const effect = [f.help, ...markers(f)].join(' ');
  return [
    code(flag),
    code(valueName(f)),
    cell(defaultPhrase(f).replace(/^\(default:? ?|\)$/g, '')),
    code(field),
    reference.map(code).join(', '),
    cell(effect),
  ].join(' | ');
}

function fieldRow(name: string, help: string): string {
  const inert = INERT_FIELDS[name];
  const effect = inert === undefined ? help : `${help} **Takes no effect here:** ${inert}`;
  return [code(name), cell(effect)].join(' | ');
}

/** The generated part of docs/configuration.md, markers included. */
export function renderConfigurationReference(): string {
  const out = [
    CONFIG_DOC_BEGIN,
    '',
    '### Flags',
    '',
    'Every flag, with its value type, default, the configuration-file field it sets (flag-only',
    "settings have none) and the reference's spelling where it differs from ours; under the",
    "`kubernetes` profile the reference's spellings are accepted too.",
    '',
    ...MARKER_LEGEND.map(([marker, meaning]) => `- \`${marker}\`: ${meaning}`),
    '',
    '| flag | value | default | config field | reference name | effect |',
    '|---|---|---|---|---|---|',
    ...sortedFlags().map((f) => `| ${flagRow(f)} |`),
    '',
    '### Configuration-file fields without a flag',
    '',
    '| field | effect |',
    '|---|---|',
    ...Object.keys(FILE_ONLY_FIELDS)
      .sort()
      .map((name) => `| ${fieldRow(name, FILE_ONLY_FIELDS[name] ?? '')} |`),
    '',
    CONFIG_DOC_END,
  ];
  return `${out.join('\n')}\n`;
}

/** `page` with its generated part replaced by `reference`; throws when a marker is missing. */
export function withConfigurationReference(page: string, reference: string): string {
  const begin = page.indexOf(CONFIG_DOC_BEGIN);
  const end = page.indexOf(CONFIG_DOC_END);
  if (begin < 0 || end < begin)
    throw new Error(
      `docs/configuration.md lacks the markers ${CONFIG_DOC_BEGIN} ... ${CONFIG_DOC_END}`,
    );
  return page.slice(0, begin) + reference + page.slice(end + CONFIG_DOC_END.length + 1);
}
