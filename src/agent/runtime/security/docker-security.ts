// A container's security context in Docker's create body, as the reference's kubelet with its
// Docker adapter (dockershim) wrote it: User `uid[:gid]` (the image's user when only runAsGroup
// is set), GroupAdd (fsGroup, supplementalGroups), CapAdd/CapDrop, Privileged, ReadonlyRootfs,
// SecurityOpt (seccomp, SELinux labels, apparmor, no-new-privileges), and the masked and
// read-only /proc paths of procMount Default for a container that is not privileged.
// prepareDockerSecurity does what needs I/O first: the image's user (when runAsUser is unset)
// and a Localhost seccomp profile's content.
import type { Container, Pod } from '../../pod/types.js';
import { ContainerConfigError } from '../types.js';
import type { ContainerSettings } from '../settings/container-settings.js';
import {
  dockerSeccompOpts,
  loadSeccompProfile,
  seccompProfileOf,
  type SeccompProfile,
} from '../settings/seccomp.js';
import { appArmorProfileOf, dockerAppArmorOpts } from './apparmor.js';
import { dockerCapabilities } from './capabilities.js';
import {
  effectiveSecurity,
  maskedPaths,
  noNewPrivileges,
  podSupplementalGroups,
  readonlyPaths,
  type EffectiveSecurity,
} from './effective.js';
import { parseImageUser, runAsNonRootViolation, type ImageUser } from './run-as-non-root.js';

/** What the Docker conversion needs that I/O found. */
export interface DockerSecurityInput {
  /** The image's USER, when it had to be read. */
  imageUser?: ImageUser;
  seccomp: SeccompProfile;
  /** A Localhost profile's JSON. */
  seccompJson?: string;
}

/** The reference's seccomp root: <root-dir>/seccomp (settings.seccompProfileRoot). */
function profileRoot(s: ContainerSettings): string {
  return s.seccompProfileRoot ?? '/var/lib/nodeagent/seccomp';
}

/**
 * Reads what the conversion needs; throws ContainerConfigError (runAsNonRoot, a Localhost profile
 * without a name) or RuntimeError (a profile that cannot be read).
 */
export async function prepareDockerSecurity(
  pod: Pod,
  c: Container,
  s: ContainerSettings,
  readImageUser: () => Promise<string | undefined>,
): Promise<DockerSecurityInput> {
  const e = effectiveSecurity(pod, c);
  const imageUser = e.runAsUser === undefined ? parseImageUser(await readImageUser()) : undefined;
  const violation = runAsNonRootViolation(pod, c, imageUser ?? {});
  if (violation !== undefined) throw new ContainerConfigError(violation);
  const seccomp = seccompProfileOf(pod, c, s.seccompDefault, profileRoot(s));
  const seccompJson =
    seccomp.type === 'Localhost' ? await loadSeccompProfile(seccomp.path) : undefined;
  return {
    ...(imageUser !== undefined ? { imageUser } : {}),
    seccomp,
    ...(seccompJson !== undefined ? { seccompJson } : {}),
  };
}

/**
 * `uid[:gid]` as the reference's kubelet passes the user: runAsUser, else the image's uid or name
 * (without the group its USER may name) or root when it names none; undefined when the image was
 * not read and nothing is asked.
 */
export function dockerUser(e: EffectiveSecurity, image: ImageUser | undefined): string | undefined {
  const user =
    e.runAsUser !== undefined
      ? String(e.runAsUser)
      : image === undefined
        ? undefined
        : image.uid !== undefined
          ? String(image.uid)
          : (image.username ?? '0');
  if (e.runAsGroup === undefined) return user;
  return `${user ?? '0'}:${String(e.runAsGroup)}`;
}

function seLinuxOpts(e: EffectiveSecurity): string[] {
  const o = e.seLinuxOptions;
  if (o === undefined) return [];
  return (['user', 'role', 'type', 'level'] as const)
    .filter((k) => (o[k] ?? '') !== '')
    .map((k) => `label=${k}:${o[k] ?? ''}`);
}

export interface DockerSecurityFields {
  User?: string;
  HostConfig: {
    GroupAdd?: string[];
    CapAdd?: string[];
    CapDrop?: string[];
    Privileged?: boolean;
    ReadonlyRootfs?: boolean;
    SecurityOpt: string[];
    MaskedPaths?: string[];
    ReadonlyPaths?: string[];
  };
}

export function dockerSecurity(
  pod: Pod,
  c: Container,
  s: ContainerSettings,
  input: DockerSecurityInput,
): DockerSecurityFields {
  const e = effectiveSecurity(pod, c);
  const user = dockerUser(e, input.imageUser);
  const groups = podSupplementalGroups(pod).map(String);
  const privileged = e.privileged === true;
  return {
    ...(user !== undefined ? { User: user } : {}),
    HostConfig: {
      ...(groups.length > 0 ? { GroupAdd: groups } : {}),
      ...dockerCapabilities(e.capabilities),
      ...(privileged ? { Privileged: true } : {}),
      ...(e.readOnlyRootFilesystem === true ? { ReadonlyRootfs: true } : {}),
      SecurityOpt: [
        ...dockerSeccompOpts(input.seccomp, input.seccompJson),
        ...seLinuxOpts(e),
        ...dockerAppArmorOpts(appArmorProfileOf(pod, c)),
        ...(noNewPrivileges(e) ? ['no-new-privileges'] : []),
      ],
      ...(privileged
        ? {}
        : {
            MaskedPaths: maskedPaths(e, s.thermalThrottlePaths ?? []),
            ReadonlyPaths: readonlyPaths(e),
          }),
    },
  };
}
