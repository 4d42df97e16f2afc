// NodeAgentFlags: the settings that exist only on the command line (no config-file field), shown as
// the second document of --print-config. The keys are the flag table's `flagsField` names; the
// ones other parts read are typed here, the rest (deprecated flag-only options) stay generic.
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
  /** Set by --version=vX.Y.Z: the version the agent reports instead of the package's. */
  reportedVersion?: string;
  [other: string]: unknown;
}

/** Defaults the spec states for flag-only options (keyed by flagsField). */
const KNOWN_DEFAULTS: Readonly<Record<string, unknown>> = {
  maximumDeadContainers: -1,
  maximumDeadContainersPerContainer: 1,
  minimumContainerTTLDuration: '0s',
  experimentalAllocatableIgnoreEviction: false,
  experimentalMounterPath: '',
};

/** The zero value of a flag's type, used when neither the spec nor the user gives a value. */
function zeroFor(spec: FlagSpec): unknown {
  switch (spec.type) {
    case 'bool':
    case 'seccompDefault':
      return spec.defaultText === 'true';
    case 'int':
    case 'int32': {
      const n = Number(spec.defaultText);
      return spec.defaultText !== undefined && Number.isFinite(n) ? n : 0;
    }
    case 'strings':
    case 'taints':
    case 'reservedMemory':
    case 'vmodule':
      return [];
    case 'mapStringString':
    case 'featureGates':
    case 'colonMultimap':
      return {};
    case 'duration':
      return spec.defaultText !== undefined && /^[0-9.]+[a-zµ]+/.test(spec.defaultText) ? spec.defaultText : '0s';
    default:
      return '';
  }
}

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
};

/** The flag-only settings, defaults filled in, with the values given on the command line. */
export function buildNodeAgentFlags(specs: readonly FlagSpec[], values: ReadonlyMap<string, FlagValue>): NodeAgentFlags {
  const out: NodeAgentFlags = structuredClone(BASE);
  for (const spec of specs) {
    if (spec.flagsField === undefined || spec.configPath !== undefined) continue;
    const given = values.get(spec.name);
    if (given !== undefined) out[spec.flagsField] = structuredClone(given);
    else if (!(spec.flagsField in out)) out[spec.flagsField] = Object.hasOwn(KNOWN_DEFAULTS, spec.flagsField) ? KNOWN_DEFAULTS[spec.flagsField] : zeroFor(spec);
  }
  return out;
}
