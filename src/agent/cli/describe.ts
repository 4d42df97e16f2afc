// What --help and the man page say about each flag, derived from the flag table only.
import type { FlagSpec, FlagType } from './flag-spec.js';
import { FLAGS } from './flags.js';

/** The value placeholder shown after the flag name, as pflag prints it ('' for booleans). */
const VALUE_NAME: Readonly<Record<FlagType, string>> = {
  string: 'string',
  strings: 'strings',
  bool: '',
  int32: 'int32',
  int: 'int',
  duration: 'duration',
  quantity: 'quantity',
  mapStringString: 'mapStringString',
  featureGates: 'mapStringBool',
  colonMultimap: 'colonSeparatedMultimapStringString',
  taints: '[]Taint',
  reservedMemory: 'reserved-memory',
  vmodule: 'pattern=N,...',
  version: 'version[=true]',
  seccompDefault: '',
  help: '',
};

export function valueName(spec: FlagSpec): string {
  return VALUE_NAME[spec.type];
}

/** Flags in the order the reference's help lists them: by long name. */
export function sortedFlags(): FlagSpec[] {
  return [...FLAGS].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `-v, --v int`, `    --address string` style left column (without indentation). */
export function flagSignature(spec: FlagSpec): { short: string; long: string } {
  const vn = valueName(spec);
  return {
    short: spec.short === undefined ? '' : `-${spec.short}`,
    long: `--${spec.name}${vn === '' ? '' : ` ${vn}`}`,
  };
}

/** `(default "0.0.0.0")`, `(default 2m0s)`, `(default: empty (runtime default))`, or ''. */
export function defaultPhrase(spec: FlagSpec): string {
  const d = spec.defaultText;
  if (d === undefined || d === '') return '';
  const descriptive = /\s/.test(d) || d === 'empty' || d === 'none';
  if (descriptive) return `(default: ${d})`;
  return spec.type === 'string' ? `(default ${JSON.stringify(d)})` : `(default ${d})`;
}

/** `[cfg]`, `[dep: reason]`, `[alpha]`, `[beta]` markers, in that order. */
export function markers(spec: FlagSpec): string[] {
  const out: string[] = [];
  if (spec.note?.kind === 'cfg') out.push('[cfg]');
  if (spec.note?.kind === 'dep') out.push(`[dep: ${spec.note.reason}]`);
  if (spec.stage !== undefined) out.push(`[${spec.stage}]`);
  return out;
}

/** The one-paragraph description of a flag: help, default, markers. */
export function flagUsage(spec: FlagSpec): string {
  return [spec.help, defaultPhrase(spec), ...markers(spec)].filter((s) => s !== '').join(' ');
}

export const PROGRAM_SUMMARY =
  'nodeagent is the agent that runs on every node of a cluster. It registers the node with the ' +
  'API server, takes pod specifications from the API server, from files (--pod-manifest-path) ' +
  'and from a URL (--manifest-url), makes sure the containers they describe run and stay ' +
  'healthy through a container runtime, and serves an authenticated HTTPS API about its node. ' +
  'With --platconfig it runs in API server mode; without, standalone.';

export const PRECEDENCE_TEXT =
  'Most settings belong in the configuration file given by --config (kind ' +
  'NodeAgentConfiguration, apiVersion nodeagent.config.<platform domain>/v1beta1); drop-in ' +
  'files ending in .conf in --config-dir override it in lexical order, and command-line flags ' +
  'override both. Precedence, lowest first: built-in defaults, --config file, --config-dir ' +
  'drop-ins, flags. Feature gates merge name by name.';

export const MARKER_LEGEND: readonly [string, string][] = [
  [
    '[cfg]',
    'deprecated as a flag: set it in the --config file instead (the flag still works ' +
      'and prints a warning)',
  ],
  ['[dep]', 'deprecated for the reason given (the flag still works and prints a warning)'],
  ['[alpha]', 'alpha: may change or go away without notice'],
  ['[beta]', 'beta: enabled and expected to stay, details may still change'],
];
