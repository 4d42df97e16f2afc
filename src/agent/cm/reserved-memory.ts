// --reserved-memory at the Static memory manager's start, as the reference's
// validateReservedMemory:
// per memory type, the sum over NUMA nodes must equal what node allocatable reserves
// (system-reserved + plat-reserved, plus the hard eviction threshold for memory).
import { normalizeQuantity, parseQuantity } from '../../common/util/values/quantity.js';
import type { NodeAgentConfiguration } from '../config/schema.js';

export type ReservedMemoryConfig = Pick<
  NodeAgentConfiguration,
  'reservedMemory' | 'systemReserved' | 'platReserved' | 'evictionHard'
>;

const isMemoryType = (t: string): boolean => t === 'memory' || t.startsWith('hugepages-');

function bytes(q: string | undefined): number {
  return q === undefined ? 0 : Math.round(parseQuantity(q).value);
}

/** As resource.Quantity prints a sum of binary quantities: 1Gi, 768Mi, or plain bytes. */
function quantityText(n: number): string {
  return n !== 0 && n % 1024 === 0 ? normalizeQuantity(`${n / 1024}Ki`) : String(n);
}

/** The hard eviction memory.available in bytes (a percentage of the node's memory). */
function hardEviction(c: ReservedMemoryConfig, memoryBytes: number): number {
  const v = c.evictionHard['memory.available'];
  if (v === undefined) return 0;
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(v);
  return pct?.[1] !== undefined ? Math.round((Number(pct[1]) / 100) * memoryBytes) : bytes(v);
}

/** The reference's error for the first type whose sum differs, or undefined. */
export function reservedMemoryProblem(
  c: ReservedMemoryConfig,
  memoryBytes: number,
): string | undefined {
  const total = new Map<string, number>();
  for (const r of c.reservedMemory)
    for (const [t, q] of Object.entries(r.limits)) total.set(t, (total.get(t) ?? 0) + bytes(q));
  const types = new Set([
    ...total.keys(),
    ...[...Object.keys(c.systemReserved), ...Object.keys(c.platReserved), 'memory'].filter(
      isMemoryType,
    ),
  ]);
  for (const t of [...types].sort()) {
    const allocatable =
      bytes(c.systemReserved[t]) +
      bytes(c.platReserved[t]) +
      (t === 'memory' ? hardEviction(c, memoryBytes) : 0);
    const reserved = total.get(t) ?? 0;
    if (allocatable !== reserved) {
      return (
        `the total amount "${quantityText(reserved)}" of type "${t}" is not equal to the ` +
        `value "${quantityText(allocatable)}" determined by Node Allocatable feature`
      );
    }
  }
  return undefined;
}
