// A container to CRI's ContainerConfig, as the reference's generateContainerConfig builds it:
// image, command and args ($(VAR) expanded), env, working dir, mounts (with propagation, the
// pod's resolv.conf is the runtime's own from the sandbox's DNS config), devices, labels and
// annotations, the log path <container>/<attempt>.log under the sandbox's log directory, stdin and
// tty, and for Linux the resources (CPU shares, quota and period, memory, oom_score_adj, cpuset)
// and the security context.
import { hugepageLimits } from '../settings/huge-pages.js';
import { parseQuantity } from '../../../common/util/values/quantity.js';
import { recordOf } from '../../../common/util/json-shape.js';
import { terminationMessagePathOf, type Container, type Pod } from '../../pod/types.js';
import { plainEnvironment } from '../../pod/expand.js';
import {
  LABELS,
  type ContainerConfig as AgentContainerConfig,
  type ContainerMount,
} from '../types.js';
import {
  defaultContainerSettings,
  dockerContainerSettings,
  type ContainerSettings,
} from '../settings/container-settings.js';
import { criContainerSecurity } from '../security/cri-security.js';
import type { ImageUser } from '../security/run-as-non-root.js';
import { KUBE_LABELS, namespaceOptions, podLabels, withPidTarget } from './sandbox-config.js';
import {
  MountPropagation,
  type ContainerConfig,
  type Device,
  type LinuxContainerResources,
  type LinuxContainerSecurityContext,
  type Mount,
} from './types.generated.js';

export interface ContainerInput extends AgentContainerConfig {
  nodeName?: string;
  /** The pod's agent-managed hosts file, mounted at /etc/hosts. */
  hostsPath?: string;
  settings?: ContainerSettings;
  /** Who the image runs as (ImageStatus uid / username). */
  imageUser?: ImageUser;
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

const BIND_PROPAGATION: Readonly<Record<ContainerMount['propagation'], MountPropagation>> = {
  rprivate: MountPropagation.PROPAGATION_PRIVATE,
  rslave: MountPropagation.PROPAGATION_HOST_TO_CONTAINER,
  rshared: MountPropagation.PROPAGATION_BIDIRECTIONAL,
};

/** A file the agent made, bound read-write at `path` (the hosts file, the termination message). */
const fileMount = (host: string, path: string): Mount => ({
  container_path: path,
  host_path: host,
  readonly: false,
  propagation: MountPropagation.PROPAGATION_PRIVATE,
});

/**
 * Every mount of the container: its volumes as the volume manager resolved them (the volume paths
 * when it did not), the pod's hosts file at /etc/hosts, and the termination message file at
 * terminationMessagePath, as the reference's makeMounts lists them.
 */
export function allMounts(i: ContainerInput): Mount[] {
  const c = i.container;
  const volumes =
    i.mounts?.map((m) => ({
      container_path: m.containerPath,
      host_path: m.hostPath,
      readonly: m.readOnly,
      propagation: BIND_PROPAGATION[m.propagation],
    })) ?? containerMounts(c, i.volumePaths);
  return [
    ...volumes,
    ...(i.hostsPath !== undefined ? [fileMount(i.hostsPath, '/etc/hosts')] : []),
    ...(i.terminationMessageFile !== undefined
      ? [fileMount(i.terminationMessageFile, terminationMessagePathOf(c))]
      : []),
  ];
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
    ...((s.hugePageSizes ?? []).length > 0
      ? { hugepage_limits: hugepageLimits(c, s.hugePageSizes ?? []) }
      : {}),
  };
}

/** The security context; `image` is who the image runs as (ImageStatus). */
export function containerSecurity(
  pod: Pod,
  c: Container,
  s: ContainerSettings,
  image: ImageUser = {},
): LinuxContainerSecurityContext {
  return criContainerSecurity(pod, c, s, namespaceOptions(pod), image);
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
    ...(i.terminationMessageFile !== undefined
      ? { [LABELS.terminationMessageFile]: i.terminationMessageFile }
      : {}),
  };
}

/** The container's log file, relative to the sandbox's log directory (the reference's form). */
export const containerLogPath = (name: string, attempt: number): string => `${name}/${attempt}.log`;

export function containerConfig(i: ContainerInput): ContainerConfig {
  const c = i.container;
  const s = i.settings ?? defaultContainerSettings();
  const cmd = i.environment ?? plainEnvironment(c);
  return {
    metadata: { name: c.name, attempt: i.attempt },
    image: { image: c.image ?? '' },
    command: cmd.command ?? [],
    args: cmd.args ?? [],
    working_dir: c.workingDir ?? '',
    envs: cmd.env.map((e) => ({ key: e.name, value: e.value })),
    mounts: allMounts(i),
    devices: containerDevices(c, i.volumePaths),
    labels: containerLabels(i),
    annotations: { 'io.kubernetes.container.hash': i.specHash },
    log_path: containerLogPath(c.name, i.attempt),
    stdin: c.stdin === true,
    stdin_once: c.stdinOnce === true,
    tty: c.tty === true,
    linux: {
      resources: linuxResources(i.pod, c, s),
      security_context: withPidTarget(
        containerSecurity(i.pod, c, s, i.imageUser),
        i.targetContainerId,
      ),
    },
  };
}
