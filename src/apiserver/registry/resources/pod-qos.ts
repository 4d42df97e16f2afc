// A new pod's status.qosClass, as the reference's API server computes it over the defaulted spec
// (requests already filled from limits): BestEffort with no cpu or memory request or limit,
// Guaranteed when every container and init container limits both and each summed request equals
// the summed limit, Burstable otherwise.

import { isRecord, listOf } from '../../../common/util/json-shape.js';
import { quantityValueOrZero } from '../../../common/util/values/quantity.js';
import type { Obj } from '../types.js';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const QOS_RESOURCES = ['cpu', 'memory'] as const;

/** Adds the container's positive cpu and memory amounts of one list into `sums`. */
function addAmounts(list: unknown, sums: Map<string, number>): number {
  let found = 0;
  for (const r of QOS_RESOURCES) {
    const v = quantityValueOrZero(isRecord(list) ? list[r] : undefined);
    if (v <= 0) continue;
    sums.set(r, (sums.get(r) ?? 0) + v);
    found++;
  }
  return found;
}

export function podQosClass(spec: Obj): QosClass {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let limitsEverywhere = true;
  const containers = [...listOf(spec['containers']), ...listOf(spec['initContainers'])];
  for (const c of containers.filter(isRecord)) {
    const resources = isRecord(c['resources']) ? c['resources'] : {};
    addAmounts(resources['requests'], requests);
    if (addAmounts(resources['limits'], limits) !== QOS_RESOURCES.length) limitsEverywhere = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  const equal = [...requests].every(([r, v]) => limits.get(r) === v);
  return limitsEverywhere && equal && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
