// The shutdown grace periods by pod priority, as the reference's node shutdown manager computes
// them (pkg/kubelet/nodeshutdown, Kubernetes 1.32): shutdownGracePeriod and
// shutdownGracePeriodCriticalPods migrate to two groups (priority 0 and system-critical), and
// each pod joins the group of the highest priority not above its own.

/** One row of shutdownGracePeriodByPodPriority. */
export interface PriorityGracePeriod {
  priority: number;
  shutdownGracePeriodSeconds: number;
}

/** The reference's scheduling.DefaultPriorityWhenNoDefaultClassExists. */
export const DEFAULT_PRIORITY = 0;
/** The reference's scheduling.SystemCriticalPriority (2 × HighestUserDefinablePriority). */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

/**
 * The reference's migrateConfig: the two-group form of the shutdownGracePeriod pair; [] when off.
 */
export function migrateConfig(periodMs: number, criticalMs: number): PriorityGracePeriod[] {
  if (periodMs === 0) return [];
  const defaultPart = periodMs - criticalMs;
  if (defaultPart < 0) return [];
  const criticalPart = periodMs - defaultPart;
  return [
    { priority: DEFAULT_PRIORITY, shutdownGracePeriodSeconds: Math.trunc(defaultPart / 1000) },
    {
      priority: SYSTEM_CRITICAL_PRIORITY,
      shutdownGracePeriodSeconds: Math.trunc(criticalPart / 1000),
    },
  ];
}

/** The groups in force: by pod priority when given, else migrated; sorted low to high. */
export function shutdownGroups(
  byPriority: readonly PriorityGracePeriod[],
  periodMs: number,
  criticalMs: number,
): PriorityGracePeriod[] {
  const groups =
    byPriority.length > 0 ? byPriority.map((g) => ({ ...g })) : migrateConfig(periodMs, criticalMs);
  return groups.sort((a, b) => a.priority - b.priority);
}

/** What logind must allow the lock to delay shutdown for: the sum of the groups' periods. */
export function periodRequestedMs(groups: readonly PriorityGracePeriod[]): number {
  return groups.reduce((sum, g) => sum + g.shutdownGracePeriodSeconds, 0) * 1000;
}

export interface PodGroup<P> extends PriorityGracePeriod {
  pods: P[];
}

/**
 * The reference's groupByPriority: above the highest priority → the highest group; below the
 * lowest → the lowest; between two → the lower one.
 */
export function groupByPriority<P>(
  groups: readonly PriorityGracePeriod[],
  pods: readonly P[],
  priorityOf: (p: P) => number,
): PodGroup<P>[] {
  const out: PodGroup<P>[] = groups.map((g) => ({ ...g, pods: [] }));
  if (out.length === 0) return out;
  for (const pod of pods) {
    const priority = priorityOf(pod);
    let index = out.findIndex((g) => g.priority >= priority);
    if (index === -1) index = out.length - 1;
    else if (index > 0 && (out[index]?.priority ?? 0) > priority) index--;
    out[index]?.pods.push(pod);
  }
  return out;
}
