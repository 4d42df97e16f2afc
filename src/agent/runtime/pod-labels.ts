// The labels by which the agent finds its own pods' containers on any runtime: managed, node,
// pod UID, name and namespace, and the grace period a later stop honours.
import type { Pod } from '../pod/types.js';
import { LABELS } from './types.js';

export function agentPodLabels(pod: Pod, nodeName?: string): Record<string, string> {
  return {
    [LABELS.managed]: 'true',
    ...(nodeName !== undefined ? { [LABELS.node]: nodeName } : {}),
    [LABELS.podUid]: pod.metadata.uid,
    [LABELS.podName]: pod.metadata.name,
    [LABELS.podNamespace]: pod.metadata.namespace,
    [LABELS.grace]: String(pod.spec.terminationGracePeriodSeconds ?? 30),
  };
}
