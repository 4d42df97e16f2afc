// Defaults that depend on other settings, as the reference's SetDefaults_KubeletConfiguration
// gives them: serializeImagePulls is false when maxParallelImagePulls is 2 or more and nobody set
// serializeImagePulls; crashLoopBackOff.maxContainerRestartPeriod is 300s when the
// PlatletCrashLoopBackOffMax gate is on and the file leaves it unset.
import type { NodeAgentConfiguration } from './schema.js';
import { gateLookup } from './validate.js';

export interface DependentDefaultsInput {
  /** Whether a file, a drop-in or a flag set serializeImagePulls. */
  serializeImagePullsSet: boolean;
}

/** The reference's MaxContainerBackOff (pkg/kubelet/apis/config/v1beta1/defaults.go). */
export const MAX_CONTAINER_BACKOFF = '5m0s';

/** Applies the dependent defaults in place. */
export function applyDependentDefaults(
  c: NodeAgentConfiguration,
  input: DependentDefaultsInput,
): void {
  const parallel = c.maxParallelImagePulls;
  if (!input.serializeImagePullsSet && typeof parallel === 'number' && parallel >= 2)
    c.serializeImagePulls = false;
  if (
    gateLookup(c.featureGates)('PlatletCrashLoopBackOffMax') &&
    c.crashLoopBackOff.maxContainerRestartPeriod === null
  ) {
    c.crashLoopBackOff.maxContainerRestartPeriod = MAX_CONTAINER_BACKOFF;
  }
}
