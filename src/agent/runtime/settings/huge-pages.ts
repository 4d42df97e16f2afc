// A container's hugetlb limits, as the reference sets them on a CRI runtime: for each huge page
// size the host offers, the container's limits[hugepages-<size>] in bytes, else 0, so a container
// uses no huge pages it did not ask for. Sizes are spelt as the runtime takes them (2MB, 1GB, 64KB).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseQuantity } from '../../../common/util/values/quantity.js';
import type { Container } from '../../pod/types.js';

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'] as const;

export interface HugePages {
  readonly pageBytes: number;
  /** The pages set aside (nr_hugepages). */
  readonly count: number;
}

const HUGEPAGES_DIR = '/sys/kernel/mm/hugepages';

/**
 * The huge page sizes under `dir` (`hugepages-2048kB/nr_hugepages`), in name order, as cadvisor
 * and libcontainer read them; none when the kernel has no huge pages. A size whose count cannot be
 * read is left out.
 */
export function hostHugePages(dir = HUGEPAGES_DIR): HugePages[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    const m = /^hugepages-(\d+)kB$/.exec(n);
    if (m?.[1] === undefined) return [];
    let count: number;
    try {
      count = Number(readFileSync(join(dir, n, 'nr_hugepages'), 'utf8').trim());
    } catch {
      return [];
    }
    return Number.isSafeInteger(count) && count >= 0
      ? [{ pageBytes: Number(m[1]) * 1024, count }]
      : [];
  });
}

/** The page sizes in bytes the host offers. */
export function hostHugePageSizes(dir = HUGEPAGES_DIR): number[] {
  return hostHugePages(dir).map((h) => h.pageBytes);
}

/** A page size in the runtime's spelling: the largest unit that divides it (2097152 -> 2MB). */
export function pageSizeText(bytes: number): string {
  let size = bytes;
  let unit = 0;
  while (size % 1024 === 0 && size > 0 && unit < UNITS.length - 1) {
    size /= 1024;
    unit++;
  }
  return `${String(size)}${UNITS[unit] ?? ''}`;
}

/** The limits for the CRI's LinuxContainerResources.hugepage_limits. */
export function hugepageLimits(
  c: Container,
  hostSizes: readonly number[],
): { page_size: string; limit: number }[] {
  const asked = new Map<string, number>();
  for (const [name, amount] of Object.entries(c.resources?.limits ?? {})) {
    if (!name.startsWith('hugepages-')) continue;
    const page = parseQuantity(name.slice('hugepages-'.length)).value;
    asked.set(pageSizeText(page), Math.round(parseQuantity(amount).value));
  }
  return hostSizes.map((bytes) => {
    const page_size = pageSizeText(bytes);
    return { page_size, limit: asked.get(page_size) ?? 0 };
  });
}
