// The naming profile follows from the input when --platform-profile is not given, so a kubeadm
// node's systemd drop-in works with only the binary's path changed: a reference flag spelling
// (--kubeconfig, --bootstrap-kubeconfig, ...) or a --config / --config-dir file of kind
// KubeletConfiguration selects the kubernetes profile; a NodeAgentConfiguration file or an
// explicit --platform-profile=platform are signals of the platform profile. Signals of both
// profiles at once are an error naming one of each. The choice and its reason are returned so
// the caller says once why the profile was selected.
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { namesFor, type PlatformProfile } from '../../common/names.js';
import { ConfigError } from '../../common/util/errors.js';
import { CONFIG_FILE_LIMITS } from '../../common/util/parse-limits.js';
import type { PreRead } from '../config/pre-read.js';
import { ourFlagName } from './reference-flags.js';
import { isRecord, recordOf } from '../../common/util/json-shape.js';

export interface ProfileSignal {
  readonly profile: PlatformProfile;
  /**
   * What in the input says so, e.g. `the flag --kubeconfig (the reference's spelling of
   * --platconfig)`.
   */
  readonly why: string;
}

/** The reference's flag spellings in `argv` (before `--`), each once, as `[given, ours]`. */
export function referenceSpellingsIn(argv: readonly string[]): [string, string][] {
  const out = new Map<string, string>();
  for (const a of argv) {
    if (a === '--') break;
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    const ours = ourFlagName(name);
    if (ours !== undefined && !out.has(name)) out.set(name, ours);
  }
  return [...out];
}

/** The signal of the command line's flag spellings, or undefined when it has none. */
export function flagSignal(argv: readonly string[]): ProfileSignal | undefined {
  const first = referenceSpellingsIn(argv)[0];
  if (first === undefined) return undefined;
  return {
    profile: 'kubernetes',
    why: `the flag --${first[0]} (the reference's spelling of --${first[1]})`,
  };
}

/** The apiVersion group of the reference's KubeletConfiguration, and the prefix of ours. */
const KUBELET_CONFIG_GROUP = namesFor('kubernetes').agentConfig.apiVersion.split('/')[0] ?? '';
const NODEAGENT_CONFIG_PREFIX = 'nodeagent.config.';

/**
 * The profile a config document's identity belongs to, or undefined when it is neither's: the
 * apiVersion's group first (a mixed identity is the loader's to report under that profile), else
 * the kind.
 */
export function documentProfile(doc: unknown): PlatformProfile | undefined {
  if (!isRecord(doc)) return undefined;
  const { apiVersion, kind } = doc;
  const group = typeof apiVersion === 'string' ? (apiVersion.split('/')[0] ?? '') : '';
  if (group === KUBELET_CONFIG_GROUP) return 'kubernetes';
  if (group.startsWith(NODEAGENT_CONFIG_PREFIX)) return 'platform';
  if (kind === namesFor('kubernetes').agentConfig.kind) return 'kubernetes';
  if (kind === namesFor('platform').agentConfig.kind) return 'platform';
  return undefined;
}

/** `apiVersion: x, kind: y` of a document, the fields it has. */
function identityText(doc: unknown): string {
  const d = recordOf(doc);
  return ['apiVersion', 'kind']
    .filter((k) => typeof d[k] === 'string' && d[k] !== '')
    .map((k) => `${k}: ${String(d[k])}`)
    .join(', ');
}

/**
 * The file's text, or undefined when it cannot be read here (the loader reports why). Read
 * synchronously, as the loader and the drop-in listing do: nothing else runs while the
 * configuration loads, and each asynchronous call is a round trip through libuv's thread pool,
 * which on a loaded machine waits to be scheduled (about 70 of them for a file and ten drop-ins).
 */
function readConfigText(path: string): string | undefined {
  try {
    const fd = openSync(path, 'r');
    try {
      const st = fstatSync(fd);
      if (!st.isFile() || st.size > CONFIG_FILE_LIMITS.maxBytes) return undefined;
      return readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** The document of a text, or undefined when it does not parse (the loader reports where). */
async function parseForSignal(
  text: string,
  source: string,
  fast: { value: unknown } | undefined,
): Promise<unknown> {
  if (fast !== undefined) return fast.value;
  // Loaded only for a text the fast parser leaves to it.
  const { parseYamlValueBounded } = await import('../../common/util/bounded-yaml.js');
  try {
    return parseYamlValueBounded(text, { limits: CONFIG_FILE_LIMITS, source });
  } catch {
    return undefined;
  }
}

/**
 * The profile signal of a config file, from its kind. A file that cannot be read or parsed here
 * gives none: the loader reads it again and reports the problem with file, line and column. What
 * was read goes into `preRead`, so that the loader neither reads nor parses it again.
 */
export async function fileSignal(
  path: string,
  what: string,
  preRead?: PreRead,
): Promise<ProfileSignal | undefined> {
  const text = readConfigText(path);
  if (text === undefined) return undefined;
  // Loaded here only: --help and --version never read a file.
  const { fastYamlValue } = await import('../../common/util/fast-yaml.js');
  const fast = fastYamlValue(text);
  preRead?.files.set(resolve(path), { text, fast });
  // named as the loader names it (load.ts), so that a YAML note about the file is given once
  const doc = await parseForSignal(text, `${what.replace(/^the /, '')} "${path}"`, fast);
  const profile = documentProfile(doc);
  if (profile === undefined) return undefined;
  return { profile, why: `${what} "${path}" (${identityText(doc)})` };
}

/** The text of a conflict between two signals. */
export function conflictMessage(a: ProfileSignal, b: ProfileSignal): string {
  const hint =
    'give the input of one profile only: under --platform-profile=kubernetes the reference flag ' +
    'spellings and a KubeletConfiguration file, under --platform-profile=platform our spellings ' +
    '(--platconfig, --bootstrap-platconfig, ...) and a NodeAgentConfiguration file';
  return (
    `conflicting naming profiles: ${a.why} selects the ${a.profile} profile, but ${b.why} ` +
    `selects the ${b.profile} profile; ${hint}`
  );
}

/**
 * The profile from the signals, in order of strength (explicit flag first). Throws ConfigError
 * naming two that disagree; undefined when there is no signal at all.
 */
export function decideProfile(signals: readonly ProfileSignal[]): ProfileSignal | undefined {
  const first = signals[0];
  if (first === undefined) return undefined;
  const other = signals.find((s) => s.profile !== first.profile);
  if (other !== undefined)
    throw new ConfigError(conflictMessage(first, other), { flag: '--platform-profile' });
  return first;
}

export interface ProfileInput {
  /** --platform-profile as given (already checked to be a profile), or undefined. */
  explicit: PlatformProfile | undefined;
  /** The command line as given (reference spellings untranslated). */
  argv: readonly string[];
  /** --config and --config-dir, when given. */
  configFile: string | undefined;
  configDir: string | undefined;
}

/** The signals of the command line alone (no file read), strongest first. */
export function commandLineSignals(
  explicit: PlatformProfile | undefined,
  argv: readonly string[],
): ProfileSignal[] {
  const flags = flagSignal(argv);
  return [
    ...(explicit !== undefined
      ? [{ profile: explicit, why: `--platform-profile=${explicit}` }]
      : []),
    ...(flags !== undefined ? [flags] : []),
  ];
}

/** The drop-ins of --config-dir, listed once (kept in `preRead`); none when it cannot be listed. */
async function dropInFiles(dir: string, preRead: PreRead | undefined): Promise<readonly string[]> {
  const { listDropIns } = await import('../config/dropins.js');
  try {
    const files = await listDropIns(dir);
    preRead?.dropIns.set(resolve(dir), files);
    return files;
  } catch {
    // A directory that cannot be listed gives no signal: the loader reports it.
    return [];
  }
}

/**
 * Every signal of the input, strongest first: the explicit flag, the spellings, the files. The
 * files read and the drop-ins listed are kept in `preRead` for the loader.
 */
export async function inputSignals(
  input: ProfileInput,
  preRead?: PreRead,
): Promise<ProfileSignal[]> {
  const signals = commandLineSignals(input.explicit, input.argv);
  if (input.configFile !== undefined) {
    const s = await fileSignal(input.configFile, 'the config file', preRead);
    if (s !== undefined) signals.push(s);
  }
  if (input.configDir !== undefined) {
    const files = await dropInFiles(input.configDir, preRead);
    for (const f of files) {
      const s = await fileSignal(f, 'the drop-in config file', preRead);
      if (s !== undefined) signals.push(s);
    }
  }
  return signals;
}

/**
 * The profile the input selects, or undefined when nothing says: `inferred` is set when the
 * profile was not given explicitly (the caller logs its reason once). Throws on a conflict.
 */
export async function selectProfile(
  input: ProfileInput,
  preRead?: PreRead,
): Promise<{ profile: PlatformProfile; inferred: ProfileSignal | undefined } | undefined> {
  const chosen = decideProfile(await inputSignals(input, preRead));
  if (chosen === undefined) return undefined;
  return { profile: chosen.profile, inferred: input.explicit === undefined ? chosen : undefined };
}

/** The one line saying why an inferred profile was selected. */
export function inferredProfileMessage(s: ProfileSignal): string {
  return (
    `naming profile ${s.profile} selected by ${s.why} (no --platform-profile was given; ` +
    `--platform-profile=${s.profile} says so explicitly)`
  );
}
