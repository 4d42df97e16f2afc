// The one place that turns flags + --config file + --config-dir drop-ins into the effective
// configuration. Precedence, lowest to highest: defaults < file < drop-ins < flags; feature gates
// merge key by key. Fatal load problems throw ConfigError; validation problems are returned all
// together so the caller can print every one of them.
import type { FlagSpec, FlagValue, ParsedFlags } from '../cli/flag-spec.js';
import { isPlatformProfile, namesFor, unknownProfileMessage } from '../../common/names.js';
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
import { loadShapeSchema, mapPathsOf } from './shape-check.js';
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
      const current = target['featureGates'];
      const merged = {
        ...(isPlainObject(current) ? current : {}),
        ...(value as Record<string, boolean>),
      };
      setPath(target, spec.configPath, merged);
    } else {
      setPath(target, spec.configPath, value);
    }
  }
}

export async function buildConfiguration(opts: BuildOptions): Promise<EffectiveConfiguration> {
  const { specs, parsed, preRead } = opts;
  const values = parsed.values;
  const domainFlag = stringFlag(values, 'platform-domain');
  const profileFlag = stringFlag(values, 'platform-profile');
  if (profileFlag !== undefined && !isPlatformProfile(profileFlag))
    throw new ConfigError(unknownProfileMessage(profileFlag, '--platform-profile'), {
      flag: '--platform-profile',
    });
  const profile = profileFlag;
  const configPath = stringFlag(values, 'config');
  const configDir = stringFlag(values, 'config-dir');
  // The published schema serves the fast shape check and tells which fields are maps; without
  // it (a broken install) zod answers both, just more slowly.
  const shape = loadShapeSchema();
  const maps =
    shape !== undefined
      ? mapPathsOf(shape)
      : (await import('./schema-paths.js')).schemaPaths().maps;
  const isMap = (p: string) => maps.has(p);

  let file: LoadedConfigFile | undefined;
  if (configPath !== undefined) {
    file = await loadConfigFile(configPath, {
      shape,
      platformDomain: domainFlag,
      defaultPlatformDomain: DEFAULT_PLATFORM_DOMAIN,
      profile,
      preRead,
    });
  }
  const fileDomain =
    file !== undefined && typeof file.content['platformDomain'] === 'string'
      ? file.content['platformDomain']
      : undefined;
  const domain = domainFlag ?? fileDomain ?? DEFAULT_PLATFORM_DOMAIN;
  const defaults = defaultConfiguration(
    file === undefined ? 'flags' : 'file',
    domain,
  ) as unknown as JsonObject;

  let merged: JsonObject =
    file === undefined ? structuredClone(defaults) : overlayFile(defaults, file.content, isMap);
  const files = file === undefined ? [] : [file.path];
  let serializeImagePullsSet = file?.content['serializeImagePulls'] !== undefined;
  const warnings = file === undefined ? [] : [...file.warnings];
  if (configDir !== undefined) {
    for (const d of await loadDropIns(configDir, {
      shape,
      platformDomain: domain,
      defaultPlatformDomain: DEFAULT_PLATFORM_DOMAIN,
      profile,
      preRead,
    })) {
      merged = mergePatch(merged, d.content) as JsonObject;
      serializeImagePullsSet ||=
        d.content['serializeImagePulls'] !== undefined && d.content['serializeImagePulls'] !== null;
      files.push(d.path);
      warnings.push(...d.warnings);
    }
    // A drop-in may delete a field with null: it falls back to its default.
    merged = overlayFile(defaults, merged, isMap);
  }
  if (file !== undefined) defaultZeroFileDurations(merged, defaults);
  applyFlags(merged, specs, parsed);
  const flagOf = flagLookup(specs);
  warnings.push(
    ...defaultZeroFlagDurations(merged, defaults, (path) => {
      const flag = flagOf(path);
      return flag !== undefined && values.has(flag) ? flag : undefined;
    }),
  );
  // The identity of the effective document is always this version's, in its platform domain.
  if (domainFlag !== undefined) merged['platformDomain'] = domainFlag;
  if (profile !== undefined) merged['platformProfile'] = profile;
  const effectiveDomain =
    typeof merged['platformDomain'] === 'string' ? merged['platformDomain'] : domain;
  merged['apiVersion'] = configApiVersion(effectiveDomain);
  merged['kind'] = CONFIG_KIND;

  const config = normalizeConfiguration(merged as unknown as NodeAgentConfiguration);
  applyDependentDefaults(config, {
    serializeImagePullsSet: serializeImagePullsSet || values.has('serialize-image-pulls'),
  });
  const flags = buildNodeAgentFlags(specs, values);
  for (const suite of config.tlsCipherSuites) {
    if (TLS_CIPHER_SUITES[suite]?.insecure === true)
      warnings.push(
        `tlsCipherSuites (--tls-cipher-suites) includes the insecure cipher suite ${suite}`,
      );
  }
  const problems = [
    ...validateConfiguration(config, { flagFor: flagLookup(specs) }),
    ...validateFlagOnly(
      flags,
      namesFor(
        isPlatformProfile(config.platformProfile) ? config.platformProfile : undefined,
        config.platformDomain,
      ),
    ),
  ];
  return { config, flags, files, warnings, problems };
}
