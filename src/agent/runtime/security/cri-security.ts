// A container's LinuxContainerSecurityContext for a CRI runtime, as the reference's
// determineEffectiveSecurityContext builds it: the effective user and group (the image's uid or
// user name when runAsUser is unset), capabilities as written, SELinux options, privileged,
// read-only root, the pod's namespaces, fsGroup and supplementalGroups with their policy,
// no_new_privs, the /proc paths of procMount, the seccomp and AppArmor profiles.
import type { Container, Pod } from '../../pod/types.js';
import type { ContainerSettings } from '../settings/container-settings.js';
import { seccompProfileOf } from '../settings/seccomp.js';
import {
  SecurityProfile_ProfileType,
  SupplementalGroupsPolicy,
  type LinuxContainerSecurityContext,
  type NamespaceOption,
  type SecurityProfile,
} from '../cri/types.generated.js';
import { appArmorProfileName, appArmorProfileOf } from './apparmor.js';
import {
  effectiveSecurity,
  maskedPaths,
  noNewPrivileges,
  podSupplementalGroups,
  readonlyPaths,
} from './effective.js';
import { imageUid, type ImageUser } from './run-as-non-root.js';

const PROFILE: Record<'RuntimeDefault' | 'Unconfined' | 'Localhost', SecurityProfile_ProfileType> =
  {
    RuntimeDefault: SecurityProfile_ProfileType.RuntimeDefault,
    Unconfined: SecurityProfile_ProfileType.Unconfined,
    Localhost: SecurityProfile_ProfileType.Localhost,
  };

function criSeccomp(pod: Pod, c: Container, s: ContainerSettings): SecurityProfile {
  const p = seccompProfileOf(
    pod,
    c,
    s.seccompDefault,
    s.seccompProfileRoot ?? '/var/lib/nodeagent/seccomp',
  );
  return {
    profile_type: PROFILE[p.type],
    ...(p.type === 'Localhost' ? { localhost_ref: p.path } : {}),
  };
}

function criAppArmor(pod: Pod, c: Container): Partial<LinuxContainerSecurityContext> {
  const p = appArmorProfileOf(pod, c);
  if (p === undefined) return {};
  const name = appArmorProfileName(p);
  const type = p.type === '' ? 'Unconfined' : p.type;
  return {
    apparmor: {
      profile_type: PROFILE[type],
      ...(p.type === 'Localhost' ? { localhost_ref: p.localhostProfile ?? '' } : {}),
    },
    apparmor_profile: name,
  };
}

function criUser(
  runAsUser: number | undefined,
  image: ImageUser,
): Pick<LinuxContainerSecurityContext, 'run_as_user' | 'run_as_username'> {
  if (runAsUser !== undefined) return { run_as_user: { value: runAsUser } };
  const uid = imageUid(image);
  return {
    ...(uid !== undefined ? { run_as_user: { value: uid } } : {}),
    ...(image.username !== undefined && image.username !== ''
      ? { run_as_username: image.username }
      : {}),
  };
}

export function criContainerSecurity(
  pod: Pod,
  c: Container,
  s: ContainerSettings,
  namespaces: NamespaceOption,
  image: ImageUser,
): LinuxContainerSecurityContext {
  const e = effectiveSecurity(pod, c);
  const groups = podSupplementalGroups(pod);
  const policy = pod.spec.securityContext?.supplementalGroupsPolicy;
  return {
    ...(e.capabilities !== undefined
      ? {
          capabilities: {
            add_capabilities: [...(e.capabilities.add ?? [])],
            drop_capabilities: [...(e.capabilities.drop ?? [])],
          },
        }
      : {}),
    ...(e.seLinuxOptions !== undefined
      ? {
          selinux_options: {
            user: e.seLinuxOptions.user ?? '',
            role: e.seLinuxOptions.role ?? '',
            type: e.seLinuxOptions.type ?? '',
            level: e.seLinuxOptions.level ?? '',
          },
        }
      : {}),
    privileged: e.privileged === true,
    readonly_rootfs: e.readOnlyRootFilesystem === true,
    namespace_options: namespaces,
    ...criUser(e.runAsUser, image),
    ...(e.runAsGroup !== undefined ? { run_as_group: { value: e.runAsGroup } } : {}),
    ...(groups.length > 0 ? { supplemental_groups: groups } : {}),
    ...(policy === 'Strict' || policy === 'Merge'
      ? { supplemental_groups_policy: SupplementalGroupsPolicy[policy] }
      : {}),
    no_new_privs: noNewPrivileges(e),
    masked_paths: maskedPaths(e, s.thermalThrottlePaths ?? []),
    readonly_paths: readonlyPaths(e),
    seccomp: criSeccomp(pod, c, s),
    ...criAppArmor(pod, c),
  };
}
