// Standalone --pod-cidr, as the reference's updatePodCIDR: logged, then handed to the runtime
// (CRI UpdateRuntimeConfig) before any pod starts. With an API server the control plane's
// node.spec.podCIDRs rule instead (src/agent/start/services.ts says so).
import type { Logger } from '../../common/log/types.js';
import type { ContainerRuntime } from './types.js';

export function applyStandalonePodCIDR(
  runtime: ContainerRuntime,
  podCIDR: string,
  logger: Logger,
): void {
  if (podCIDR === '') return;
  logger.info({ originalPodCIDR: '', newPodCIDR: podCIDR }, 'Updating Pod CIDR');
  runtime.updatePodCIDR?.(podCIDR);
}
