// memorySwap.swapBehavior on Docker, as the reference's configureContainerSwapResources (1.32):
// "" and NoSwap give a container no swap (Docker's MemorySwap equal to its Memory; left alone,
// Docker would allow as much swap as memory); LimitedSwap, on cgroup v2 only, gives a Burstable
// container swap in proportion to its memory request: request / node memory * node swap.
// Guaranteed and BestEffort containers, and every container on cgroup v1, get none.
import type { Container, Pod } from '../../pod/types.js';
import { parseQuantity } from '../../../common/util/values/quantity.js';
import { podQosClass } from './qos.js';

export interface SwapSettings {
  behavior: 'NoSwap' | 'LimitedSwap';
  /** The host's SwapTotal in bytes. */
  swapCapacityBytes: number;
  /** LimitedSwap needs cgroup v2 (memory.swap.max). */
  cgroupV2: boolean;
}

/** The swap bytes LimitedSwap gives this container (0 for all but Burstable). */
export function limitedSwapBytes(
  pod: Pod,
  c: Container,
  memoryCapacity: number,
  swapCapacity: number,
): number {
  if (podQosClass(pod) !== 'Burstable' || memoryCapacity <= 0) return 0;
  const request = c.resources?.requests?.memory;
  if (request === undefined) return 0;
  return Math.floor((parseQuantity(request).value / memoryCapacity) * swapCapacity);
}

/**
 * Docker's MemorySwap (memory plus swap) for a container with `memoryBytes` as its limit; undefined
 * without a memory limit, since Docker bounds swap only together with memory.
 */
export function dockerMemorySwap(
  pod: Pod,
  c: Container,
  memoryBytes: number | undefined,
  memoryCapacity: number,
  s: SwapSettings,
): number | undefined {
  if (memoryBytes === undefined || memoryBytes <= 0) return undefined;
  if (s.behavior === 'LimitedSwap' && s.cgroupV2)
    return memoryBytes + limitedSwapBytes(pod, c, memoryCapacity, s.swapCapacityBytes);
  return memoryBytes;
}

/** SwapTotal of /proc/meminfo in bytes (0 when unreadable). */
export function hostSwapBytes(meminfo: string): number {
  const m = /^SwapTotal:\s+(\d+) kB$/m.exec(meminfo);
  return m?.[1] === undefined ? 0 : Number(m[1]) * 1024;
}
