// --reserved-memory: `0:memory=1Gi,hugepages-1Gi=2Gi;1:memory=2Gi`, the reference's
// ReservedMemoryVar. The result is the config file's list of {numaNode, limits}, one entry per
// NUMA node in the order first named, limits as canonical quantities.
import { invalidValue } from './error.js';
import { parseQuantity } from './quantity.js';

export interface MemoryReservation {
  readonly numaNode: number;
  readonly limits: Readonly<Record<string, string>>;
}

export const RESERVED_MEMORY_ACCEPTED =
  '<numaNode>:<type>=<quantity>[,<type>=<quantity>...] separated by ";", type memory or ' +
  'hugepages-<size>, such as 0:memory=1Gi,hugepages-1Gi=2Gi;1:memory=2Gi';

const HUGEPAGES = /^hugepages-(.+)$/;

/** Parses one occurrence and appends it to `into` (the reference merges repeats by NUMA node). */
export function parseReservedMemory(
  s: string,
  flag?: string,
  into: readonly MemoryReservation[] = [],
): MemoryReservation[] {
  const fail = (reason: string): never => {
    throw invalidValue(s, flag, reason, RESERVED_MEMORY_ACCEPTED);
  };
  const byNode = new Map<number, Record<string, string>>();
  const order: number[] = [];
  for (const r of into) {
    byNode.set(r.numaNode, { ...r.limits });
    order.push(r.numaNode);
  }
  if (s === '') return [...into];
  for (const reservation of s.split(';')) {
    const parts = reservation.split(':');
    if (parts.length !== 2)
      return fail(
        `the reserved memory has incorrect format, expected numaNodeID:type=quantity[,` +
          `type=quantity...], got ${reservation}`,
      );
    const nodeText = parts[0] ?? '';
    if (!/^[+-]?[0-9]+$/.test(nodeText) || Number(nodeText) < 0 || Number(nodeText) > 2147483647) {
      return fail(
        `failed to convert the NUMA node ID, expected a non-negative integer, got ${nodeText}`,
      );
    }
    const node = Number(nodeText);
    for (const limit of (parts[1] ?? '').split(',')) {
      const kv = limit.split('=');
      if (kv.length !== 2)
        return fail(`the reserved limit has incorrect value, expected type=quantity, got ${limit}`);
      const type = kv[0] ?? '';
      const hp = HUGEPAGES.exec(type);
      if (type !== 'memory' && (hp === null || !isQuantity(hp[1] ?? '')))
        return fail(`memory type conversion error, unknown type: "${type}"`);
      let canonical: string;
      try {
        canonical = parseQuantity(kv[1] ?? '').canonical;
      } catch {
        return fail(`failed to parse the quantity, expected quantity, got ${kv[1] ?? ''}`);
      }
      let limits = byNode.get(node);
      if (limits === undefined) {
        limits = {};
        byNode.set(node, limits);
        order.push(node);
      }
      limits[type] = canonical;
    }
  }
  return order.map((numaNode) => ({ numaNode, limits: byNode.get(numaNode) ?? {} }));
}

function isQuantity(s: string): boolean {
  try {
    parseQuantity(s);
    return true;
  } catch {
    return false;
  }
}
