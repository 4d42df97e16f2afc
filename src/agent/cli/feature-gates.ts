// The feature gates nodeagent knows, with their default and stage as in the reference (v1.32),
// translated to our names (Kubelet -> Platlet; the reference's names are read as ours). Gates
// are values passed around, never a global: `resolveFeatureGates(overrides)` gives a lookup the
// agent's parts receive.
import { invalidValue } from '../../common/util/values/error.js';
import { parseBoolMap, BOOL_MAP_ACCEPTED } from '../../common/util/values/lists.js';

export type FeatureStage = 'alpha' | 'beta' | 'ga' | 'deprecated';

export interface FeatureGateInfo {
  readonly name: string;
  readonly default: boolean;
  readonly stage: FeatureStage;
  /** GA or deprecated gates that can no longer be changed from their default. */
  readonly locked?: boolean;
}

const a = (name: string): FeatureGateInfo => ({ name, default: false, stage: 'alpha' });
const b = (name: string, def = true): FeatureGateInfo => ({ name, default: def, stage: 'beta' });
const ga = (name: string): FeatureGateInfo => ({ name, default: true, stage: 'ga', locked: true });
const gaOpen = (name: string): FeatureGateInfo => ({ name, default: true, stage: 'ga' });
const dep = (name: string): FeatureGateInfo => ({ name, default: false, stage: 'deprecated' });

/** Sorted by name. `AllAlpha` / `AllBeta` set every alpha / beta gate not named explicitly. */
export const KNOWN_FEATURE_GATES: readonly FeatureGateInfo[] = [
  a('AllAlpha'),
  b('AllBeta', false),
  dep('AllowDNSOnlyNodeCSR'),
  dep('AllowInsecurePlatletCertificateSigningRequests'),
  b('ContainerCheckpoint'),
  b('ContextualLogging'),
  ga('CPUManager'),
  a('CPUManagerPolicyAlphaOptions'),
  b('CPUManagerPolicyBetaOptions'),
  b('CPUManagerPolicyOptions'),
  a('CustomCPUCFSQuotaPeriod'),
  b('DynamicResourceAllocation', false),
  a('EventedPLEG'),
  b('GracefulNodeShutdown'),
  b('GracefulNodeShutdownBasedOnPodPriority'),
  b('ImageMaximumGCAge'),
  a('ImageVolume'),
  a('InPlacePodVerticalScaling'),
  b('LocalStorageCapacityIsolationFSQuotaMonitoring', false),
  a('LoggingAlphaOptions'),
  b('LoggingBetaOptions'),
  ga('MemoryManager'),
  a('MemoryQoS'),
  b('NodeLogQuery', false),
  b('NodeSwap'),
  b('PlatletCgroupDriverFromCRI'),
  a('PlatletCrashLoopBackOffMax'),
  // nodeagent's own (not the reference's): events through events.k8s.io/v1, as the newer recorder
  // writes them, instead of core/v1 as the reference's kubelet does.
  a('PlatletEventsV1Recorder'),
  a('PlatletFineGrainedAuthz'),
  a('PlatletInUserNamespace'),
  a('PlatletPodResourcesDynamicResources'),
  a('PlatletPodResourcesGet'),
  dep('PlatletRegistrationGetOnExistsOnly'),
  b('PlatletSeparateDiskGC'),
  b('PlatletTracing'),
  a('PodAndContainerStatsFromCRI'),
  b('PodLifecycleSleepAction'),
  a('PodLevelResources'),
  b('PodReadyToStartContainersCondition'),
  b('ProcMountType', false),
  a('QOSReserved'),
  b('RecursiveReadOnlyMounts'),
  b('ReloadPlatletServerCertificateFile'),
  a('ResourceHealthStatus'),
  b('RotatePlatletServerCertificate'),
  b('SidecarContainers'),
  ga('SizeMemoryBackedVolumes'),
  a('SupplementalGroupsPolicy'),
  b('SystemdWatchdog'),
  gaOpen('TopologyManagerPolicyOptions'),
  a('TopologyManagerPolicyAlphaOptions'),
  b('TopologyManagerPolicyBetaOptions'),
  b('UserNamespacesSupport', false),
].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));

const BY_NAME: ReadonlyMap<string, FeatureGateInfo> = new Map(
  KNOWN_FEATURE_GATES.map((g) => [g.name, g]),
);

/**
 * A gate's name as nodeagent knows it: the reference's spelling of one of ours (KubeletTracing for
 * PlatletTracing, as a kubeadm configuration writes it) is read as ours, whatever the profile.
 */
export function canonicalGateName(name: string): string {
  if (BY_NAME.has(name) || !name.includes('Kubelet')) return name;
  const ours = name.replaceAll('Kubelet', 'Platlet');
  return BY_NAME.has(ours) ? ours : name;
}

export function featureGateInfo(name: string): FeatureGateInfo | undefined {
  return BY_NAME.get(canonicalGateName(name));
}

/** "AllAlpha=true|false (ALPHA - default=false)" lines, as the reference lists them in --help. */
export function describeFeatureGates(): string[] {
  return KNOWN_FEATURE_GATES.map(
    (g) => `${g.name}=true|false (${g.stage.toUpperCase()} - default=${g.default})`,
  );
}

/**
 * Problems with a map of gate settings (unknown names, locked gates set away from their
 * default), each naming the gate; empty when all is well. Used for flags and config files alike.
 */
export function featureGateProblems(gates: Readonly<Record<string, boolean>>): string[] {
  const problems: string[] = [];
  const given = new Map<string, string>();
  for (const [name, value] of Object.entries(gates)) {
    const info = featureGateInfo(name);
    const other = info === undefined ? undefined : given.get(info.name);
    if (info !== undefined) given.set(info.name, name);
    if (other !== undefined) {
      problems.push(
        `feature gate ${name} is ${other} under another name (the reference's and nodeagent's): ` +
          'set it once',
      );
    } else if (info === undefined) {
      problems.push(
        `unrecognized feature gate: ${name} (known gates: ` +
          `${KNOWN_FEATURE_GATES.map((g) => g.name).join(', ')})`,
      );
    } else if (info.locked === true && value !== info.default) {
      problems.push(
        `cannot set feature gate ${name} to ${value}, feature is locked to ${info.default}`,
      );
    }
  }
  return problems;
}

/** Parses `A=true,B=false` (Go ParseBool values) and refuses unknown or locked gates. */
export function parseFeatureGates(s: string, flag?: string): Record<string, boolean> {
  const gates = parseBoolMap(s, flag);
  const problems = featureGateProblems(gates);
  if (problems.length > 0) throw invalidValue(s, flag, problems.join('; '), BOOL_MAP_ACCEPTED);
  return gates;
}

export interface FeatureGates {
  enabled(name: string): boolean;
  /** Every known gate with its effective value. */
  readonly effective: Readonly<Record<string, boolean>>;
}

/**
 * The effective gates for a set of overrides (already merged from file and flags). AllAlpha and
 * AllBeta change the default of every gate of their stage; explicit settings win over them.
 */
export function resolveFeatureGates(
  overrides: Readonly<Record<string, boolean>> = {},
): FeatureGates {
  const effective: Record<string, boolean> = {};
  const byName = new Map(Object.entries(overrides).map(([k, v]) => [canonicalGateName(k), v]));
  const allAlpha = overrides['AllAlpha'];
  const allBeta = overrides['AllBeta'];
  for (const g of KNOWN_FEATURE_GATES) {
    let v = g.default;
    if (g.stage === 'alpha' && allAlpha !== undefined && g.name !== 'AllAlpha') v = allAlpha;
    if (g.stage === 'beta' && allBeta !== undefined && g.name !== 'AllBeta') v = allBeta;
    const o = byName.get(g.name);
    if (o !== undefined) v = o;
    effective[g.name] = v;
  }
  return {
    effective,
    enabled(name: string): boolean {
      const v = effective[name];
      if (v === undefined) throw new Error(`feature gate ${name} is not known to nodeagent`);
      return v;
    },
  };
}
