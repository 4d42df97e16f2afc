// A pod to CRI's PodSandboxConfig, as the reference's generatePodSandboxConfig builds it: metadata,
// hostname, the log directory <podLogsDir>/<namespace>_<name>_<uid>, DNS, host port mappings,
// labels and annotations, and for Linux the cgroup parent, sysctls and the sandbox's security
// context (namespaces, user, groups, seccomp, privileged when a container is).
import { isRecord, recordOf } from '../../../common/util/json-shape.js';
import type { Pod } from '../../pod/types.js';
import { podLogsDirName } from '../pod-logs/links.js';
import { LABELS } from '../types.js';
import { agentPodLabels } from '../pod-labels.js';
import { podSysctls } from '../settings/sysctls.js';
import { podSupplementalGroups } from '../security/effective.js';
import type { DnsConfig } from '../settings/resolv-conf.js';
import {
  NamespaceMode,
  Protocol,
  SecurityProfile_ProfileType,
  SupplementalGroupsPolicy,
  type LinuxSandboxSecurityContext,
  type NamespaceOption,
  type PodSandboxConfig,
  type PortMapping,
} from './types.generated.js';

/** The reference's labels on every sandbox and container (kubetypes). */
export const KUBE_LABELS = {
  podName: 'io.kubernetes.pod.name',
  podNamespace: 'io.kubernetes.pod.namespace',
  podUid: 'io.kubernetes.pod.uid',
  containerName: 'io.kubernetes.container.name',
} as const;

export interface SandboxInput {
  pod: Pod;
  attempt: number;
  podLogsDir: string;
  nodeName?: string;
  cgroupParent?: string;
  dns?: DnsConfig;
}

/** The labels that identify a pod's sandbox and containers (the reference's and ours). */
export function podLabels(pod: Pod, nodeName: string | undefined): Record<string, string> {
  return {
    [KUBE_LABELS.podName]: pod.metadata.name,
    [KUBE_LABELS.podNamespace]: pod.metadata.namespace,
    [KUBE_LABELS.podUid]: pod.metadata.uid,
    ...agentPodLabels(pod, nodeName),
  };
}

const PROTOCOLS: Readonly<Record<string, Protocol>> = {
  TCP: Protocol.TCP,
  UDP: Protocol.UDP,
  SCTP: Protocol.SCTP,
};

/** Every container port with a hostPort (the reference maps them for all containers). */
export function portMappings(pod: Pod): PortMapping[] {
  const out: PortMapping[] = [];
  for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers])
    for (const p of c.ports ?? []) {
      if (p.hostPort === undefined || p.hostPort <= 0) continue;
      out.push({
        protocol: PROTOCOLS[p.protocol ?? 'TCP'] ?? Protocol.TCP,
        container_port: p.containerPort,
        host_port: p.hostPort,
        host_ip: p.hostIP ?? '',
      });
    }
  return out;
}

const boolField = (o: Record<string, unknown>, k: string): boolean => o[k] === true;

/** Network, PID and IPC namespaces: the node's with hostNetwork/hostPID/hostIPC. */
export function namespaceOptions(pod: Pod): NamespaceOption {
  const spec = recordOf(pod.spec);
  return {
    network: boolField(spec, 'hostNetwork') ? NamespaceMode.NODE : NamespaceMode.POD,
    pid: boolField(spec, 'hostPID')
      ? NamespaceMode.NODE
      : boolField(spec, 'shareProcessNamespace')
        ? NamespaceMode.POD
        : NamespaceMode.CONTAINER,
    ipc: boolField(spec, 'hostIPC') ? NamespaceMode.NODE : NamespaceMode.POD,
  };
}

/**
 * An ephemeral container with targetContainerName joins its target's PID namespace (TARGET mode),
 * as the reference does when the pod asks for no other PID sharing (mode CONTAINER).
 */
export function withPidTarget<T extends { namespace_options?: NamespaceOption }>(
  sc: T,
  targetId: string | undefined,
): T {
  const ns = sc.namespace_options;
  if (targetId === undefined || ns?.pid !== NamespaceMode.CONTAINER) return sc;
  return { ...sc, namespace_options: { ...ns, pid: NamespaceMode.TARGET, target_id: targetId } };
}

/** The sandbox runs RuntimeDefault whatever the pod asks (a pod profile may be tighter). */
function sandboxSecurity(pod: Pod): LinuxSandboxSecurityContext {
  const sc = pod.spec.securityContext;
  const groups = podSupplementalGroups(pod);
  const policy = sc?.supplementalGroupsPolicy;
  const se = sc?.seLinuxOptions;
  const privileged = [...(pod.spec.initContainers ?? []), ...pod.spec.containers].some(
    (c) => c.securityContext?.privileged === true,
  );
  return {
    namespace_options: namespaceOptions(pod),
    ...(sc?.runAsUser !== undefined ? { run_as_user: { value: sc.runAsUser } } : {}),
    ...(sc?.runAsGroup !== undefined ? { run_as_group: { value: sc.runAsGroup } } : {}),
    ...(groups.length > 0 ? { supplemental_groups: groups } : {}),
    ...(policy === 'Merge' || policy === 'Strict'
      ? { supplemental_groups_policy: SupplementalGroupsPolicy[policy] }
      : {}),
    ...(se !== undefined
      ? {
          selinux_options: {
            user: se.user ?? '',
            role: se.role ?? '',
            type: se.type ?? '',
            level: se.level ?? '',
          },
        }
      : {}),
    ...(privileged ? { privileged: true } : {}),
    seccomp: { profile_type: SecurityProfile_ProfileType.RuntimeDefault },
  };
}

/**
 * The pod's hostname: spec.hostname, else its name, at most 63 characters (none on the host
 * network).
 */
function hostnameOf(pod: Pod): string {
  if (pod.spec.hostNetwork === true) return '';
  const h = pod.spec.hostname;
  const name = typeof h === 'string' && h !== '' ? h : pod.metadata.name;
  return name.slice(0, 63).replace(/[-.]+$/, '');
}

export function sandboxConfig(i: SandboxInput): PodSandboxConfig {
  const { pod } = i;
  const sysctls = Object.fromEntries(podSysctls(pod).map((s) => [s.name, s.value]));
  const annotations = isRecord(pod.metadata.annotations) ? pod.metadata.annotations : {};
  return {
    metadata: {
      name: pod.metadata.name,
      uid: pod.metadata.uid,
      namespace: pod.metadata.namespace,
      attempt: i.attempt,
    },
    hostname: hostnameOf(pod),
    log_directory: `${i.podLogsDir}/${podLogsDirName(pod.metadata)}`,
    ...(i.dns !== undefined
      ? { dns_config: { servers: i.dns.servers, searches: i.dns.searches, options: i.dns.options } }
      : {}),
    port_mappings: portMappings(pod),
    labels: {
      ...(pod.metadata.labels ?? {}),
      ...podLabels(pod, i.nodeName),
      [LABELS.kind]: 'sandbox',
      [LABELS.attempt]: String(i.attempt),
    },
    annotations: { ...annotations },
    linux: {
      cgroup_parent: i.cgroupParent ?? '',
      sysctls,
      security_context: sandboxSecurity(pod),
    },
  };
}
