// The fields an ephemeral container may not set, as the reference's validateEphemeralContainers
// checks them (its allow list over EphemeralContainerCommon, in the struct's field order, and no
// subPath or subPathExpr on a volume mount): ephemeral containers are for debugging, so nothing
// the pod's service relies on (ports, resources, probes, lifecycle, restart policy). Shared by
// plat-apiserver's pods/ephemeralcontainers validation and the agent's start of one.

import { isRecord } from '../util/json-shape.js';

/** The message of each Forbidden error. */
export const EPHEMERAL_FORBIDDEN = 'cannot be set for an Ephemeral Container';

/**
 * Go's zero-value test per field: a pointer or slice is set when present (an empty list too, as the
 * reference's reflect.DeepEqual with a nil slice); `resources` when one of its maps or lists is.
 */
const FORBIDDEN: readonly (readonly [string, 'present' | 'struct'])[] = [
  ['ports', 'present'],
  ['resources', 'struct'],
  ['resizePolicy', 'present'],
  ['restartPolicy', 'present'],
  ['livenessProbe', 'present'],
  ['readinessProbe', 'present'],
  ['startupProbe', 'present'],
  ['lifecycle', 'present'],
];

function isSet(v: unknown, how: 'present' | 'struct'): boolean {
  if (v === undefined || v === null) return false;
  if (how === 'present') return true;
  if (typeof v !== 'object') return true;
  return Object.values(v).some((x) => x !== undefined && x !== null);
}

/**
 * The forbidden fields `c` sets, as paths relative to the container (`ports`,
 * `volumeMounts[0].subPath`).
 */
export function forbiddenEphemeralFields(c: Readonly<Record<string, unknown>>): string[] {
  const out = FORBIDDEN.filter(([k, how]) => isSet(c[k], how)).map(([k]) => k);
  const mounts = c['volumeMounts'];
  if (Array.isArray(mounts))
    mounts.forEach((m: unknown, i) => {
      if (!isRecord(m)) return;
      for (const k of ['subPath', 'subPathExpr'] as const) {
        const v = m[k];
        if (typeof v === 'string' && v !== '') out.push(`volumeMounts[${i}].${k}`);
      }
    });
  return out;
}
