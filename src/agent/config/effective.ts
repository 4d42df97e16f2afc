// The one place that turns flags + --config file + --config-dir drop-ins into the effective
// configuration. Precedence, lowest to highest: defaults < file < drop-ins < flags; feature gates
// merge key by key. Fatal load problems throw ConfigError; validation problems are returned all
// together so the caller can print every one of them.
import type { FlagSpec, FlagValue, ParsedFlags } from '../cli/flag-spec.js';
import { canonicalGateName } from '../cli/feature-gates.js';
import {
  isPlatformProfile,
  namesFor,
  unknownProfileMessage,
  type PlatformProfile,
} from '../../common/names.js';
import { ConfigError } from '../../common/util/errors.js';
import {
  CONFIG_KIND,
  DEFAULT_PLATFORM_DOMAIN,
  configApiVersion,
  defaultConfiguration,
} from './defaults.js';
import { loadDropIns } from './dropins.js';
import { buildNodeAgentFlags, type NodeAgentFlags } from './flags-type.js';
import { loadConfigFile, type LoadedConfigFile } from './load.js';
import { isPlainObject, mergePatch, overlayFile, setPath, type JsonObject } from './merge.js';
import { normalizeConfiguration } from './normalize.js';
import { applyDependentDefaults } from './dependent-defaults.js';
import { defaultZeroFileDurations, defaultZeroFlagDurations } from './zero-durations.js';
import { loadShapeSchema, mapPathsOf, type ShapeSchema } from './shape-check.js';
import type { PreRead } from './pre-read.js';
import type { NodeAgentConfiguration } from './schema.js';
import { TLS_CIPHER_SUITES } from './tls-ciphers.js';
import { validateFlagOnly } from './validate-flags.js';
import { validateConfiguration } from './validate.js';

export interface BuildOptions {
  /** The flag table (src/cli/flags.ts). */
  specs: readonly FlagSpec[];
  parsed: ParsedFlags;
  /** The files the naming-profile inference read already (pre-read.ts), handed to the loader. */
  preRead?: PreRead | undefined;
}

export interface EffectiveConfiguration {
  config: NodeAgentConfiguration;
  flags: NodeAgentFlags;
  /** Files read, in the order applied (the --config file, then each drop-in). */
  files: string[];
  /** Dropped unknown or duplicate fields, one line each. */
  warnings: string[];
  /** Every validation problem; empty when the configuration is valid. */
  problems: string[];
}

/** Looks up the flag that sets a config field (for messages), from the flag table. */
export function flagLookup(specs: readonly FlagSpec[]): (fieldPath: string) => string | undefined {
  const byPath = new Map<string, string>();
  for (const s of specs)
    if (s.configPath !== undefined && !byPath.has(s.configPath)) byPath.set(s.configPath, s.name);
  return (path) => byPath.get(path);
}

function stringFlag(values: ReadonlyMap<string, FlagValue>, name: string): string | undefined {
  const v = values.get(name);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * `current`'s gates, each one `later` names under its other name (KubeletTracing, PlatletTracing)
 * renamed to `later`'s spelling in its place, so that the later source's setting replaces it.
 */
function respelledGates(current: unknown, later: Readonly<Record<string, unknown>>): JsonObject {
  const spelling = new Map(Object.keys(later).map((k) => [canonicalGateName(k), k]));
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(isPlainObject(current) ? current : {}))
    out[spelling.get(canonicalGateName(k)) ?? k] = v;
  return out;
}

/** --feature-gates over the files' gates, key by key, under either name of a gate. */
function overGates(current: unknown, flag: FlagValue): JsonObject {
  const gates = flag as Record<string, boolean>;
  return { ...respelledGates(current, gates), ...gates };
}

/** Applies the flags given on the command line over `target`, in command-line order. */
export function applyFlags(
  target: JsonObject,
  specs: readonly FlagSpec[],
  parsed: ParsedFlags,
): void {
  const byName = new Map(specs.map((s) => [s.name, s]));
  for (const name of parsed.order) {
    const spec = byName.get(name);
    const value = parsed.values.get(name);
    if (spec?.configPath === undefined || value === undefined) continue;
    if (spec.type === 'featureGates') {
      setPath(target, spec.configPath, overGates(target['featureGates'], value));
    } else {
      setPath(target, spec.configPath, value);
    }
  }
}

/** --platform-domain and --platform-profile: the identity flags, which every file is read under. */
interface IdentityFlags {
  domain: string | undefined;
  profile: PlatformProfile | undefined;
}

function identityFlags(values: ReadonlyMap<string, FlagValue>): IdentityFlags {
  const profile = stringFlag(values, 'platform-profile');
  if (profile !== undefined && !isPlatformProfile(profile))
    throw new ConfigError(unknownProfileMessage(profile, '--platform-profile'), {
      flag: '--platform-profile',
    });
  return { domain: stringFlag(values, 'platform-domain'), profile };
}

/**
 * Which config paths hold maps (merged key by key): the published schema tells, as it serves the
 * fast shape check; without it (a broken install) zod answers both, just more slowly.
 */
async function mapPathsFor(shape: ShapeSchema | undefined): Promise<ReadonlySet<string>> {
  return shape !== undefined
    ? mapPathsOf(shape)
    : (await import('./schema-paths.js')).schemaPaths().maps;
}

/** The defaults for a start from flags alone or from a file, as a JSON document. */
function defaultsDocument(file: LoadedConfigFile | undefined, domain: string): JsonObject {
  const defaults: unknown = defaultConfiguration(file === undefined ? 'flags' : 'file', domain);
  if (!isPlainObject(defaults)) throw new Error('the default configuration is not an object');
  return defaults;
}

/** The documents merged so far, the files they came from and what they said on the way. */
interface Layered {
  merged: JsonObject;
  files: string[];
  warnings: string[];
  /** serializeImagePulls was set by a file (its dependent default then does not apply). */
  serializeImagePullsSet: boolean;
}

function fileLayer(
  defaults: JsonObject,
  file: LoadedConfigFile | undefined,
  isMap: (p: string) => boolean,
): Layered {
  if (file === undefined)
    return {
      merged: structuredClone(defaults),
      files: [],
      warnings: [],
      serializeImagePullsSet: false,
    };
  return {
    merged: overlayFile(defaults, file.content, isMap),
    files: [file.path],
    warnings: [...file.warnings],
    serializeImagePullsSet: file.content['serializeImagePulls'] !== undefined,
  };
}

/** Each --config-dir drop-in merged over `layered`, in name order. */
function applyDropIns(
  layered: Layered,
  dropIns: readonly LoadedConfigFile[],
  defaults: JsonObject,
  isMap: (p: string) => boolean,
): void {
  for (const d of dropIns) {
    const gates = d.content['featureGates'];
    // a drop-in's gate replaces the one before it under either of its names
    if (isPlainObject(gates) && isPlainObject(layered.merged['featureGates']))
      layered.merged['featureGates'] = respelledGates(layered.merged['featureGates'], gates);
    const next = mergePatch(layered.merged, d.content);
    if (isPlainObject(next)) layered.merged = next;
    const serialize = d.content['serializeImagePulls'];
    layered.serializeImagePullsSet ||= serialize !== undefined && serialize !== null;
    layered.files.push(d.path);
    layered.warnings.push(...d.warnings);
  }
  // A drop-in may delete a field with null: it falls back to its default.
  layered.merged = overlayFile(defaults, layered.merged, isMap);
}

/**
 * The identity of the effective document is always this version's, in its platform domain (the
 * flag's, else the document's, else `domain`).
 */
function stampIdentity(merged: JsonObject, identity: IdentityFlags, domain: string): void {
  if (identity.domain !== undefined) merged['platformDomain'] = identity.domain;
  if (identity.profile !== undefined) merged['platformProfile'] = identity.profile;
  const effectiveDomain =
    typeof merged['platformDomain'] === 'string' ? merged['platformDomain'] : domain;
  merged['apiVersion'] = configApiVersion(effectiveDomain);
  merged['kind'] = CONFIG_KIND;
}

/** Durations set to 0 by a flag that cannot run at 0, named by the flag that set them. */
function zeroFlagWarnings(
  merged: JsonObject,
  defaults: JsonObject,
  specs: readonly FlagSpec[],
  values: ReadonlyMap<string, FlagValue>,
): string[] {
  const flagOf = flagLookup(specs);
  return defaultZeroFlagDurations(merged, defaults, (path) => {
    const flag = flagOf(path);
    return flag !== undefined && values.has(flag) ? flag : undefined;
  });
}

function insecureCipherWarnings(config: NodeAgentConfiguration): string[] {
  return config.tlsCipherSuites
    .filter((suite) => TLS_CIPHER_SUITES[suite]?.insecure === true)
    .map(
      (suite) =>
        `tlsCipherSuites (--tls-cipher-suites) includes the insecure cipher suite ${suite}`,
    );
}

function problemsOf(
  config: NodeAgentConfiguration,
  flags: NodeAgentFlags,
  specs: readonly FlagSpec[],
): string[] {
  const profile = isPlatformProfile(config.platformProfile) ? config.platformProfile : undefined;
  return [
    ...validateConfiguration(config, { flagFor: flagLookup(specs) }),
    ...validateFlagOnly(flags, namesFor(profile, config.platformDomain)),
  ];
}

/** Defaults < --config file < --config-dir drop-ins, as one JSON document. */
async function layerFiles(
  values: ReadonlyMap<string, FlagValue>,
  identity: IdentityFlags,
  preRead: PreRead | undefined,
): Promise<Layered & { defaults: JsonObject; domain: string }> {
  const shape = loadShapeSchema();
  const maps = await mapPathsFor(shape);
  const isMap = (p: string): boolean => maps.has(p);
  const load = {
    shape,
    defaultPlatformDomain: DEFAULT_PLATFORM_DOMAIN,
    profile: identity.profile,
    preRead,
  };
  const configPath = stringFlag(values, 'config');
  const file =
    configPath === undefined
      ? undefined
      : await loadConfigFile(configPath, { ...load, platformDomain: identity.domain });
  const fileDomain = file?.content['platformDomain'];
  const domain =
    identity.domain ?? (typeof fileDomain === 'string' ? fileDomain : DEFAULT_PLATFORM_DOMAIN);
  const defaults = defaultsDocument(file, domain);
  const layered = fileLayer(defaults, file, isMap);
  const configDir = stringFlag(values, 'config-dir');
  if (configDir !== undefined) {
    const dropIns = await loadDropIns(configDir, { ...load, platformDomain: domain });
    applyDropIns(layered, dropIns, defaults, isMap);
  }
  if (file !== undefined) defaultZeroFileDurations(layered.merged, defaults);
  return { ...layered, defaults, domain };
}

export async function buildConfiguration(opts: BuildOptions): Promise<EffectiveConfiguration> {
  const { specs, parsed } = opts;
  const values = parsed.values;
  const identity = identityFlags(values);
  const layered = await layerFiles(values, identity, opts.preRead);
  const { merged, files, warnings } = layered;
  applyFlags(merged, specs, parsed);
  warnings.push(...zeroFlagWarnings(merged, layered.defaults, specs, values));
  stampIdentity(merged, identity, layered.domain);
  const config = normalizeConfiguration(merged as unknown as NodeAgentConfiguration);
  applyDependentDefaults(config, {
    serializeImagePullsSet: layered.serializeImagePullsSet || values.has('serialize-image-pulls'),
  });
  const flags = buildNodeAgentFlags(specs, values);
  warnings.push(...insecureCipherWarnings(config));
  return { config, flags, files, warnings, problems: problemsOf(config, flags, specs) };
}
