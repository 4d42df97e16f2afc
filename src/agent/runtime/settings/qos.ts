// The pod's QoS class and a container's oom_score_adj, as the reference computes them
// (pkg/apis/core/v1/helper/qos GetPodQOS, pkg/kubelet/qos/policy.go).
import type { Container, Pod } from '../../pod/types.js';
import { parseQuantity } from '../../../common/util/values/quantity.js';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const QOS_RESOURCES = ['cpu', 'memory'] as const;

/** The reference's oom_score_adj of Guaranteed (and node-critical) containers. */
export const GUARANTEED_OOM_SCORE_ADJ = -997;
export const BESTEFFORT_OOM_SCORE_ADJ = 1000;

function amount(q: string | undefined): number {
  if (q === undefined) return 0;
  try {
    return parseQuantity(q).value;
  } catch {
    return 0;
  }
}

/**
 * Requests default to limits, as the API server's defaulting does before the reference sees a pod.
 */
function requestsOf(c: Container): Record<string, string | undefined> {
  return { ...(c.resources?.limits ?? {}), ...(c.resources?.requests ?? {}) };
}

export function podQosClass(pod: Pod): QosClass {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  for (const c of [...pod.spec.containers, ...(pod.spec.initContainers ?? [])]) {
    const req = requestsOf(c);
    const found = new Set<string>();
    for (const r of QOS_RESOURCES) {
      const rq = amount(req[r]);
      if (rq > 0) requests.set(r, (requests.get(r) ?? 0) + rq);
      const lm = amount(c.resources?.limits?.[r]);
      if (lm > 0) {
        found.add(r);
        limits.set(r, (limits.get(r) ?? 0) + lm);
      }
    }
    if (found.size !== QOS_RESOURCES.length) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [r, v] of requests) if (limits.get(r) !== v) guaranteed = false;
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

function isNodeCritical(pod: Pod): boolean {
  const pcn = pod.spec.priorityClassName;
  return pcn === 'system-node-critical' && (pod.spec.priority ?? 2000001000) >= 2000000000;
}

/** The reference's GetContainerOOMScoreAdjust; memoryCapacity is the node's memory in bytes. */
export function containerOomScoreAdj(
  pod: Pod,
  container: Container,
  memoryCapacity: number,
): number {
  if (isNodeCritical(pod)) return GUARANTEED_OOM_SCORE_ADJ;
  const qos = podQosClass(pod);
  if (qos === 'Guaranteed') return GUARANTEED_OOM_SCORE_ADJ;
  if (qos === 'BestEffort') return BESTEFFORT_OOM_SCORE_ADJ;
  const memoryRequest = Math.ceil(amount(requestsOf(container)['memory']));
  // integer division as in Go (both operands are non-negative)
  const adj = 1000 - Math.trunc((1000 * memoryRequest) / Math.max(1, memoryCapacity));
  if (adj < 1000 + GUARANTEED_OOM_SCORE_ADJ) return 1000 + GUARANTEED_OOM_SCORE_ADJ;
  if (adj === BESTEFFORT_OOM_SCORE_ADJ) return adj - 1;
  return adj;
}
