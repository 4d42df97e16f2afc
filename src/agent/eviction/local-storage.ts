// Local storage eviction (--local-storage-capacity-isolation), as the reference's
// localStorageEviction: a pod whose emptyDir holds more than its sizeLimit, whose local ephemeral
// storage as a whole exceeds the sum of its containers' ephemeral-storage limits, or with a
// container over its own limit is evicted at once (grace 0), in that order, with the reference's
// message. Usage comes from a source (the volume stats cache for emptyDir volumes).
import { canonicalize, parseQuantity } from '../../common/util/values/quantity.js';
import type { Pod } from '../pod/types.js';
import type { EvictionCandidate, LocalStorageLimits } from './manager.js';

/** Bytes of local storage a pod uses. */
export interface PodStorageUsage {
  /** By volume name (emptyDir directories). */
  readonly volumes: Readonly<Record<string, number>>;
  /** By container name: its writable layer and logs, where the runtime can tell. */
  readonly containers: Readonly<Record<string, number>>;
}

const EPHEMERAL = 'ephemeral-storage';

function bytes(q: string | undefined): number | undefined {
  if (q === undefined) return undefined;
  try {
    return parseQuantity(q).value;
  } catch {
    return undefined;
  }
}

/** Go's Quantity.String(): the canonical spelling in the format the quantity was written in. */
function spell(total: number, written: string): string {
  const format = /[KMGTPE]i$/.test(written) ? 'BinarySI' : 'DecimalSI';
  return canonicalize(BigInt(Math.round(total)) * 1_000_000_000n, format);
}

/** The pod's ephemeral-storage limit (the reference's PodLimits), spelt; undefined when none. */
export function podEphemeralLimit(pod: Pod): { bytes: number; text: string } | undefined {
  const app = pod.spec.containers
    .map((c) => c.resources?.limits?.[EPHEMERAL])
    .filter((q): q is string => bytes(q) !== undefined);
  const init = (pod.spec.initContainers ?? [])
    .map((c) => c.resources?.limits?.[EPHEMERAL])
    .filter((q): q is string => bytes(q) !== undefined);
  const first = app[0] ?? init[0];
  if (first === undefined) return undefined;
  let total = app.reduce((acc, q) => acc + (bytes(q) ?? 0), 0);
  for (const q of init) total = Math.max(total, bytes(q) ?? 0);
  return { bytes: total, text: spell(total, first) };
}

function emptyDirViolation(pod: Pod, u: PodStorageUsage): string | undefined {
  for (const v of pod.spec.volumes ?? []) {
    const limit = v.emptyDir?.sizeLimit;
    const size = bytes(limit);
    const used = u.volumes[v.name];
    if (
      limit !== undefined &&
      size !== undefined &&
      size > 0 &&
      used !== undefined &&
      used > size
    ) {
      return (
        `Usage of EmptyDir volume ${JSON.stringify(v.name)} exceeds the limit ` +
        `${JSON.stringify(parseQuantity(limit).canonical)}. `
      );
    }
  }
  return undefined;
}

function containerViolation(pod: Pod, u: PodStorageUsage): string | undefined {
  for (const c of pod.spec.containers) {
    const limit = c.resources?.limits?.[EPHEMERAL];
    const size = bytes(limit);
    const used = u.containers[c.name];
    if (
      limit !== undefined &&
      size !== undefined &&
      size !== 0 &&
      used !== undefined &&
      used > size
    ) {
      return (
        `Container ${c.name} exceeded its local ephemeral storage limit ` +
        `${JSON.stringify(parseQuantity(limit).canonical)}. `
      );
    }
  }
  return undefined;
}

/** The reference's eviction message when the pod is over a local storage limit, else undefined. */
export function localStorageViolation(pod: Pod, u: PodStorageUsage): string | undefined {
  const emptyDir = emptyDirViolation(pod, u);
  if (emptyDir !== undefined) return emptyDir;
  const limit = podEphemeralLimit(pod);
  const total = [...Object.values(u.volumes), ...Object.values(u.containers)].reduce(
    (a, b) => a + b,
    0,
  );
  if (limit !== undefined && total > limit.bytes)
    return (
      'Pod ephemeral local storage usage exceeds the total limit of containers ' + `${limit.text}. `
    );
  return containerViolation(pod, u);
}

export interface LocalStorageEnforcerOptions {
  /** The pods eviction may act on (terminal ones left out). */
  candidates: () => readonly EvictionCandidate[];
  pod: (uid: string) => Pod | undefined;
  usage: (uid: string) => PodStorageUsage | undefined;
}

/** The pods over their local storage limits; undefined when isolation is off. */
export function localStorageLimits(
  enabled: boolean,
  o: LocalStorageEnforcerOptions,
): LocalStorageLimits | undefined {
  if (!enabled) return undefined;
  return {
    violations: () => {
      const out: { pod: EvictionCandidate; message: string }[] = [];
      for (const c of o.candidates()) {
        const pod = o.pod(c.uid);
        const u = o.usage(c.uid);
        const message =
          pod !== undefined && u !== undefined ? localStorageViolation(pod, u) : undefined;
        if (message !== undefined) out.push({ pod: c, message });
      }
      return Promise.resolve(out);
    },
  };
}

/**
 * A pod's usage from its volume stats (emptyDir usedBytes by name). The runtimes report no
 * per-container writable-layer or log usage, so containers count nothing here.
 */
export function storageUsageFromVolumes(
  stats: readonly { name: string; usedBytes: number }[] | undefined,
): PodStorageUsage | undefined {
  if (stats === undefined) return undefined;
  return { volumes: Object.fromEntries(stats.map((v) => [v.name, v.usedBytes])), containers: {} };
}
