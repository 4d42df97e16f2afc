// NodeAgentFlags: the settings that exist only on the command line (no config-file field), shown as
// the second document of --print-config. The keys are the flag table's `flagsField` names, each
// typed; a parsed value is checked against its field's type once, here.
import type { FlagSpec, FlagValue } from '../cli/flag-spec.js';

export interface NodeAgentFlags {
  config: string;
  configDir: string;
  platconfig: string;
  bootstrapPlatconfig: string;
  certDir: string;
  rootDir: string;
  hostnameOverride: string;
  nodeIP: string;
  nodeLabels: Record<string, string>;
  runtimeCgroups: string;
  cloudProvider: string;
  lockFile: string;
  exitOnLockContention: boolean;
  imageCredentialProviderConfig: string;
  imageCredentialProviderBinDir: string;
  /** Deprecated flag-only options, kept with the reference's defaults. */
  experimentalAllocatableIgnoreEviction: boolean;
  experimentalMounterPath: string;
  maximumDeadContainers: number;
  maximumDeadContainersPerContainer: number;
  /** A duration as the parser normalizes it ("0s", "1m0s"). */
  minimumContainerTTLDuration: string;
  podInfraContainerImage: string;
  /** Set by --version=vX.Y.Z: the version the agent reports instead of the package's. */
  reportedVersion?: string;
}

/** The fields a flag of the table fills (its `flagsField`). */
type FlagsField = Exclude<keyof NodeAgentFlags, 'reportedVersion'>;

/** The defaults: the spec's where it states one, else the zero value of the flag's type. */
const BASE: NodeAgentFlags = {
  config: '',
  configDir: '',
  platconfig: '',
  bootstrapPlatconfig: '',
  certDir: '/var/lib/nodeagent/pki',
  rootDir: '/var/lib/nodeagent',
  hostnameOverride: '',
  nodeIP: '',
  nodeLabels: {},
  runtimeCgroups: '',
  cloudProvider: '',
  lockFile: '',
  exitOnLockContention: false,
  imageCredentialProviderConfig: '',
  imageCredentialProviderBinDir: '',
  experimentalAllocatableIgnoreEviction: false,
  experimentalMounterPath: '',
  maximumDeadContainers: -1,
  maximumDeadContainersPerContainer: 1,
  minimumContainerTTLDuration: '0s',
  podInfraContainerImage: '',
};

/**
 * A value of another type than its flag's: the parser and this table disagree (a bug, not bad
 * input).
 */
function mismatch(flag: string, expected: string, value: FlagValue): Error {
  return new Error(`--${flag}: the parser gave ${JSON.stringify(value)}, not ${expected}`);
}

function text(value: FlagValue, flag: string): string {
  if (typeof value === 'string') return value;
  throw mismatch(flag, 'a string', value);
}

function bool(value: FlagValue, flag: string): boolean {
  if (typeof value === 'boolean') return value;
  throw mismatch(flag, 'a boolean', value);
}

function int(value: FlagValue, flag: string): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  throw mismatch(flag, 'an integer', value);
}

function stringMap(value: FlagValue, flag: string): Record<string, string> {
  if (typeof value === 'object' && !Array.isArray(value)) {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') throw mismatch(flag, 'a map of strings', value);
      out[k] = v;
    }
    return out;
  }
  throw mismatch(flag, 'a map of strings', value);
}

/** How each field takes its flag's parsed value: checked once here, typed everywhere after. */
const READERS: {
  readonly [K in FlagsField]: (value: FlagValue, flag: string) => NodeAgentFlags[K];
} = {
  config: text,
  configDir: text,
  platconfig: text,
  bootstrapPlatconfig: text,
  certDir: text,
  rootDir: text,
  hostnameOverride: text,
  nodeIP: text,
  nodeLabels: stringMap,
  runtimeCgroups: text,
  cloudProvider: text,
  lockFile: text,
  exitOnLockContention: bool,
  imageCredentialProviderConfig: text,
  imageCredentialProviderBinDir: text,
  experimentalAllocatableIgnoreEviction: bool,
  experimentalMounterPath: text,
  maximumDeadContainers: int,
  maximumDeadContainersPerContainer: int,
  minimumContainerTTLDuration: text,
  podInfraContainerImage: text,
};

function isFlagsField(field: string): field is FlagsField {
  return Object.hasOwn(READERS, field);
}

function setField<K extends FlagsField>(
  out: Pick<NodeAgentFlags, K>,
  field: K,
  value: FlagValue,
  flag: string,
): void {
  out[field] = READERS[field](value, flag);
}

/** The flag-only settings, defaults filled in, with the values given on the command line. */
export function buildNodeAgentFlags(
  specs: readonly FlagSpec[],
  values: ReadonlyMap<string, FlagValue>,
): NodeAgentFlags {
  const out: NodeAgentFlags = structuredClone(BASE);
  for (const spec of specs) {
    if (spec.flagsField === undefined || spec.configPath !== undefined) continue;
    if (!isFlagsField(spec.flagsField))
      throw new Error(
        `--${spec.name}: flagsField ${spec.flagsField} is not a field of NodeAgentFlags`,
      );
    const given = values.get(spec.name);
    if (given !== undefined) setField(out, spec.flagsField, given, spec.name);
  }
  return out;
}
