// A container to CRI's ContainerConfig, as the reference's generateContainerConfig builds it:
// image, command and args ($(VAR) expanded), env, working dir, mounts (with propagation, the
// pod's resolv.conf is the runtime's own from the sandbox's DNS config), devices, labels and
// annotations, the log path <container>/<attempt>.log under the sandbox's log directory, stdin and
// tty, and for Linux the resources (CPU shares, quota and period, memory, oom_score_adj, cpuset)
// and the security context.
import { parseQuantity } from '../../../common/util/values/quantity.js';
import { recordOf } from '../../../common/util/json-shape.js';
import type { Container, Pod } from '../../pod/types.js';
import { containerEnv, expandedCommand } from '../../pod/expand.js';
import { LABELS, type ContainerConfig as AgentContainerConfig } from '../types.js';
import {
  defaultContainerSettings,
  dockerContainerSettings,
  type ContainerSettings,
} from '../settings/container-settings.js';
import { seccompType } from '../settings/seccomp.js';
import { KUBE_LABELS, namespaceOptions, podLabels, withPidTarget } from './sandbox-config.js';
import {
  MountPropagation,
  type ContainerConfig,
  type Device,
  type LinuxContainerResources,
  type LinuxContainerSecurityContext,
  type Mount,
  type SecurityProfile,
} from './types.generated.js';

export interface ContainerInput extends AgentContainerConfig {
  nodeName?: string;
  settings?: ContainerSettings;
}

const PROPAGATION: Readonly<Record<string, MountPropagation>> = {
  None: MountPropagation.PROPAGATION_PRIVATE,
  HostToContainer: MountPropagation.PROPAGATION_HOST_TO_CONTAINER,
  Bidirectional: MountPropagation.PROPAGATION_BIDIRECTIONAL,
};

/** The volume mounts, each on the host directory of its volume (subPath below it). */
export function containerMounts(c: Container, volumePaths: Record<string, string>): Mount[] {
  return (c.volumeMounts ?? []).map((m) => {
    const host = volumePaths[m.name] ?? '';
    const propagation = m.mountPropagation;
    return {
      container_path: m.mountPath,
      host_path: m.subPath !== undefined && m.subPath !== '' ? `${host}/${m.subPath}` : host,
      readonly: m.readOnly === true,
      propagation:
        typeof propagation === 'string'
          ? (PROPAGATION[propagation] ?? MountPropagation.PROPAGATION_PRIVATE)
          : MountPropagation.PROPAGATION_PRIVATE,
    };
  });
}

/** volumeDevices of block volumes, at their devicePath, read-write-mknod as the reference gives. */
export function containerDevices(c: Container, volumePaths: Record<string, string>): Device[] {
  const list = Array.isArray(c.volumeDevices) ? c.volumeDevices : [];
  return list
    .map(recordOf)
    .filter((d) => typeof d['name'] === 'string' && typeof d['devicePath'] === 'string')
    .map((d) => ({
      container_path: String(d['devicePath']),
      host_path: volumePaths[String(d['name'])] ?? '',
      permissions: 'mrw',
    }));
}

function bytesOf(q: string | undefined): number | undefined {
  if (q === undefined) return undefined;
  return Math.round(parseQuantity(q).value);
}

export function linuxResources(
  pod: Pod,
  c: Container,
  s: ContainerSettings,
): LinuxContainerResources {
  const d = dockerContainerSettings(pod, c, s);
  const memory = bytesOf(c.resources?.limits?.memory);
  return {
    cpu_shares: d.CpuShares,
    ...(d.CpuQuota !== undefined ? { cpu_quota: d.CpuQuota } : {}),
    ...(d.CpuPeriod !== undefined ? { cpu_period: d.CpuPeriod } : {}),
    ...(memory !== undefined ? { memory_limit_in_bytes: memory } : {}),
    oom_score_adj: d.OomScoreAdj,
    ...(d.CpusetCpus !== undefined ? { cpuset_cpus: d.CpusetCpus } : {}),
    ...(d.CpusetMems !== undefined ? { cpuset_mems: d.CpusetMems } : {}),
  };
}

function seccompProfile(pod: Pod, c: Container, s: ContainerSettings): SecurityProfile {
  const t = seccompType(pod, c, s.seccompDefault);
  if (t === 'Localhost')
    throw new Error(
      'seccompProfile type Localhost is not supported by nodeagent: use RuntimeDefault or Unconfined',
    );
  return { profile_type: t === 'RuntimeDefault' ? 0 : 1 };
}

function capabilities(c: Container): { add_capabilities?: string[]; drop_capabilities?: string[] } {
  const caps = recordOf(recordOf(c.securityContext)['capabilities']);
  const list = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  const add = list(caps['add']);
  const drop = list(caps['drop']);
  return {
    ...(add.length > 0 ? { add_capabilities: add } : {}),
    ...(drop.length > 0 ? { drop_capabilities: drop } : {}),
  };
}

export function containerSecurity(
  pod: Pod,
  c: Container,
  s: ContainerSettings,
): LinuxContainerSecurityContext {
  const sc = c.securityContext;
  const podSc = recordOf(pod.spec.securityContext);
  const user =
    sc?.runAsUser ?? (typeof podSc['runAsUser'] === 'number' ? podSc['runAsUser'] : undefined);
  const group =
    sc?.runAsGroup ?? (typeof podSc['runAsGroup'] === 'number' ? podSc['runAsGroup'] : undefined);
  const groups = Array.isArray(podSc['supplementalGroups'])
    ? podSc['supplementalGroups'].filter((g): g is number => typeof g === 'number')
    : [];
  if (typeof podSc['fsGroup'] === 'number') groups.unshift(podSc['fsGroup']);
  const noNewPrivs = recordOf(sc)['allowPrivilegeEscalation'] === false;
  const caps = capabilities(c);
  return {
    ...(Object.keys(caps).length > 0 ? { capabilities: caps } : {}),
    privileged: sc?.privileged === true,
    namespace_options: namespaceOptions(pod),
    ...(user !== undefined ? { run_as_user: { value: user } } : {}),
    ...(group !== undefined ? { run_as_group: { value: group } } : {}),
    readonly_rootfs: sc?.readOnlyRootFilesystem === true,
    ...(groups.length > 0 ? { supplemental_groups: groups } : {}),
    no_new_privs: noNewPrivs,
    seccomp: seccompProfile(pod, c, s),
  };
}

export function containerLabels(i: ContainerInput): Record<string, string> {
  return {
    ...podLabels(i.pod, i.nodeName),
    [KUBE_LABELS.containerName]: i.container.name,
    [LABELS.kind]: i.kind,
    [LABELS.containerName]: i.container.name,
    [LABELS.attempt]: String(i.attempt),
    [LABELS.specHash]: i.specHash,
    [LABELS.sandboxId]: i.sandboxId,
  };
}

/** The container's log file, relative to the sandbox's log directory (the reference's form). */
export const containerLogPath = (name: string, attempt: number): string => `${name}/${attempt}.log`;

export function containerConfig(i: ContainerInput): ContainerConfig {
  const c = i.container;
  const s = i.settings ?? defaultContainerSettings();
  const cmd = expandedCommand(c);
  return {
    metadata: { name: c.name, attempt: i.attempt },
    image: { image: c.image ?? '' },
    command: cmd.command ?? [],
    args: cmd.args ?? [],
    working_dir: c.workingDir ?? '',
    envs: Object.entries(containerEnv(c)).map(([key, value]) => ({ key, value })),
    mounts: containerMounts(c, i.volumePaths),
    devices: containerDevices(c, i.volumePaths),
    labels: containerLabels(i),
    annotations: { 'io.kubernetes.container.hash': i.specHash },
    log_path: containerLogPath(c.name, i.attempt),
    stdin: c.stdin === true,
    stdin_once: c.stdinOnce === true,
    tty: c.tty === true,
    linux: {
      resources: linuxResources(i.pod, c, s),
      security_context: withPidTarget(containerSecurity(i.pod, c, s), i.targetContainerId),
    },
  };
}
