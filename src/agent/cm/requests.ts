// What a container asks of the CPU and memory managers: exclusive CPUs for an integer CPU request
// of a Guaranteed pod, memory blocks for the memory and hugepages requests of a Guaranteed pod.
import type { Container, Pod } from '../pod/types.js';
import { parseQuantity } from '../../common/util/values/quantity.js';
import { milliValue } from '../runtime/settings/cpu.js';
import { podQosClass } from '../runtime/settings/qos.js';

function request(c: Container, name: string): string | undefined {
  return c.resources?.requests?.[name] ?? c.resources?.limits?.[name];
}

/** The reference's guaranteedCPUs: 0 unless the pod is Guaranteed and the request is whole CPUs. */
export function guaranteedCpus(pod: Pod, c: Container): number {
  if (podQosClass(pod) !== 'Guaranteed') return 0;
  let milli: number | undefined;
  try {
    milli = milliValue(request(c, 'cpu'));
  } catch {
    return 0;
  }
  return milli === undefined || milli % 1000 !== 0 ? 0 : milli / 1000;
}

export function isInitContainer(pod: Pod, c: Container): boolean {
  return (pod.spec.initContainers ?? []).some((x) => x.name === c.name);
}

export function allContainers(pod: Pod): Container[] {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
}

/** A pod's CPUs: the larger of its largest init container and the sum of its app containers. */
export function podGuaranteedCpus(pod: Pod): number {
  const init = Math.max(0, ...(pod.spec.initContainers ?? []).map((c) => guaranteedCpus(pod, c)));
  const app = pod.spec.containers.reduce((n, c) => n + guaranteedCpus(pod, c), 0);
  return Math.max(init, app);
}

/**
 * Memory and hugepages-<size> requests in bytes of a Guaranteed pod's container; empty otherwise.
 */
export function memoryRequests(pod: Pod, c: Container): Map<string, number> {
  const out = new Map<string, number>();
  if (podQosClass(pod) !== 'Guaranteed') return out;
  const all = { ...(c.resources?.limits ?? {}), ...(c.resources?.requests ?? {}) };
  for (const [name, q] of Object.entries(all)) {
    if (name !== 'memory' && !name.startsWith('hugepages-')) continue;
    try {
      const bytes = Math.ceil(parseQuantity(q).value);
      if (bytes > 0) out.set(name, bytes);
    } catch {
      // pod validation reports a bad quantity
    }
  }
  return out;
}

/**
 * The pod's memory requests: the larger of the largest init container and the app sum, per type.
 */
export function podMemoryRequests(pod: Pod): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of pod.spec.containers)
    for (const [k, v] of memoryRequests(pod, c)) out.set(k, (out.get(k) ?? 0) + v);
  for (const c of pod.spec.initContainers ?? [])
    for (const [k, v] of memoryRequests(pod, c)) out.set(k, Math.max(out.get(k) ?? 0, v));
  return out;
}
