// A container's effective security context as the reference computes it
// (securitycontext.DetermineEffectiveSecurityContext): the pod's runAsUser, runAsGroup,
// runAsNonRoot and seLinuxOptions, each overridden by the container's own value, plus the fields
// only a container has. The groups, no_new_privs and the /proc paths follow from it the same way.
import type { Container, Pod, PodSpec } from '../../pod/types.js';

type ContainerSecurity = NonNullable<Container['securityContext']>;
type PodSecurity = NonNullable<PodSpec['securityContext']>;

/** Each field as the container sets it, else (for those the pod has) as the pod sets it. */
export interface EffectiveSecurity {
  runAsUser?: number | undefined;
  runAsGroup?: number | undefined;
  runAsNonRoot?: boolean | undefined;
  seLinuxOptions?: ContainerSecurity['seLinuxOptions'];
  capabilities?: ContainerSecurity['capabilities'];
  privileged?: boolean | undefined;
  readOnlyRootFilesystem?: boolean | undefined;
  allowPrivilegeEscalation?: boolean | undefined;
  procMount?: ContainerSecurity['procMount'];
}

export function effectiveSecurity(pod: Pod, c: Container): EffectiveSecurity {
  const p = pod.spec.securityContext;
  const s = c.securityContext;
  return {
    runAsUser: s?.runAsUser ?? p?.runAsUser,
    runAsGroup: s?.runAsGroup ?? p?.runAsGroup,
    runAsNonRoot: s?.runAsNonRoot ?? p?.runAsNonRoot,
    seLinuxOptions: s?.seLinuxOptions ?? p?.seLinuxOptions,
    capabilities: s?.capabilities,
    privileged: s?.privileged,
    readOnlyRootFilesystem: s?.readOnlyRootFilesystem,
    allowPrivilegeEscalation: s?.allowPrivilegeEscalation,
    procMount: s?.procMount,
  };
}

/**
 * The groups every container of the pod gets besides its own: fsGroup first, then
 * supplementalGroups.
 */
export function podSupplementalGroups(pod: Pod): number[] {
  const sc: PodSecurity | undefined = pod.spec.securityContext;
  return [...(sc?.fsGroup !== undefined ? [sc.fsGroup] : []), ...(sc?.supplementalGroups ?? [])];
}

/** no_new_privs: only an explicit allowPrivilegeEscalation: false asks for it. */
export const noNewPrivileges = (e: EffectiveSecurity): boolean =>
  e.allowPrivilegeEscalation === false;

/** The reference's masked /proc and /sys paths for procMount Default (none for Unmasked). */
export function maskedPaths(e: EffectiveSecurity, thermalThrottle: readonly string[]): string[] {
  if (e.procMount === 'Unmasked') return [];
  return [
    '/proc/asound',
    '/proc/acpi',
    '/proc/interrupts',
    '/proc/kcore',
    '/proc/keys',
    '/proc/latency_stats',
    '/proc/timer_list',
    '/proc/timer_stats',
    '/proc/sched_debug',
    '/proc/scsi',
    '/sys/firmware',
    '/sys/devices/virtual/powercap',
    ...thermalThrottle,
  ];
}

/** The reference's read-only /proc paths for procMount Default (none for Unmasked). */
export function readonlyPaths(e: EffectiveSecurity): string[] {
  if (e.procMount === 'Unmasked') return [];
  return ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];
}
