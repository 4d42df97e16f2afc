// env[].valueFrom.resourceFieldRef as the reference's kubelet resolves it: the container named by
// containerName (this container when empty), its limits defaulted to the node's allocatable cpu,
// memory and ephemeral-storage where unset or zero (an app container's, or this container's),
// divided by the divisor and rounded up (volume/downward-api.ts does the arithmetic).
import type { Container, Pod } from '../pod/types.js';
import { resourceFieldValue, type NodeAllocatable } from '../volume/downward-api.js';

const DEFAULTED = ['cpu', 'memory', 'ephemeral-storage'] as const;

/** The value for container `c` of `pod`; throws the reference's message when it has none. */
export function resourceRefValue(
  ref: { containerName?: string | undefined; resource: string; divisor?: string | undefined },
  pod: Pod,
  c: Container,
  allocatable: NodeAllocatable,
): string {
  const named = ref.containerName ?? '';
  const target = named === '' ? c.name : named;
  // the reference defaults the limits of this container and of the pod's app containers only
  const defaulted =
    named === '' || target === c.name || pod.spec.containers.some((x) => x.name === target);
  const limits: Record<string, number> = {};
  if (defaulted)
    for (const r of DEFAULTED) {
      const v = allocatable[r];
      if (v !== undefined) limits[r] = v;
    }
  return resourceFieldValue(pod, { ...ref, containerName: target }, limits);
}
