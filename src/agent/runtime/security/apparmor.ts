// AppArmor as the reference applies it: the container's appArmorProfile, else the pod's; a pod
// that asks for confinement (any profile but Unconfined) on a host without AppArmor is refused at
// admission (reason AppArmor, "Cannot enforce AppArmor: ..."), as the reference's admit handler
// refuses it. Docker takes `apparmor=<name>` (its own default profile needs no option).
import { existsSync, readFileSync } from 'node:fs';
import type { Container, Pod } from '../../pod/types.js';
import { ContainerConfigError } from '../types.js';

export type AppArmorProfile = NonNullable<
  NonNullable<Container['securityContext']>['appArmorProfile']
>;

export function appArmorProfileOf(pod: Pod, c: Container): AppArmorProfile | undefined {
  return c.securityContext?.appArmorProfile ?? pod.spec.securityContext?.appArmorProfile;
}

/** The profile's deprecated annotation form, which CRI runtimes still read (apparmor_profile). */
export function appArmorProfileName(p: AppArmorProfile): string {
  if (p.type === 'RuntimeDefault') return 'runtime/default';
  if (p.type === 'Unconfined') return 'unconfined';
  if (p.type === '') throw new ContainerConfigError('unknown apparmor profile type: ""');
  return `localhost/${p.localhostProfile ?? ''}`;
}

export function dockerAppArmorOpts(p: AppArmorProfile | undefined): string[] {
  if (p === undefined || p.type === 'RuntimeDefault') return [];
  if (p.type === 'Unconfined') return ['apparmor=unconfined'];
  if (p.type === '') throw new ContainerConfigError('unknown apparmor profile type: ""');
  return [`apparmor=${p.localhostProfile ?? ''}`];
}

/**
 * The reference's check (libcontainer's apparmor.IsEnabled): the securityfs entry and the module
 * flag.
 */
export function hostAppArmorEnabled(sys = '/sys'): boolean {
  if (!existsSync(`${sys}/kernel/security/apparmor`)) return false;
  try {
    return readFileSync(`${sys}/module/apparmor/parameters/enabled`, 'utf8').startsWith('Y');
  } catch {
    return false;
  }
}

const confines = (p: AppArmorProfile | undefined): boolean =>
  p !== undefined && p.type !== 'Unconfined';

export interface AppArmorAdmitResult {
  admit: boolean;
  reason?: string;
  message?: string;
}

/** The reference's AppArmor admit handler, for pods not yet running. */
export function admitAppArmor(pod: Pod, hostEnabled: boolean): AppArmorAdmitResult {
  const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  const required =
    confines(pod.spec.securityContext?.appArmorProfile) ||
    containers.some((c) => confines(c.securityContext?.appArmorProfile));
  if (!required) return { admit: true };
  const refuse = (why: string): AppArmorAdmitResult => ({
    admit: false,
    reason: 'AppArmor',
    message: `Cannot enforce AppArmor: ${why}`,
  });
  if (!hostEnabled) return refuse('AppArmor is not enabled on the host');
  for (const c of containers) {
    const p = appArmorProfileOf(pod, c);
    if (p?.type === 'Localhost' && (p.localhostProfile ?? '').trim() === '')
      return refuse(`invalid empty AppArmor profile name: container ${c.name}`);
  }
  return { admit: true };
}
