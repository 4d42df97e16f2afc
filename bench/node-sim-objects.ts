// The objects a simulated node sends, shaped as a kubelet 1.32 sends them: its Node (registered
// with a full status), its Lease in kube-node-lease, the status patches of the node and of a
// running pod (strategic merge, as the kubelet's), and the pods the simulator creates and binds.
// Sizes matter more than values here: a node's object is about 3 KB and a running pod's about
// 2.5 KB, as on a real node, so the server stores and serialises what it would in a cluster.

import { createHash } from 'node:crypto';

/** The collection of the nodes' Leases. */
export const LEASE_VERSION = 'coordination.k8s.io/v1';
export const LEASES = `/apis/${LEASE_VERSION}/namespaces/kube-node-lease/leases`;

/** A Lease's MicroTime: RFC 3339 with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** RFC 3339 to the second, as metav1.Time is written. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function hex(seed: string, n: number): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, n);
}

/** The node's InternalIP: 10.<a>.<b>.1 from its index, unique up to 65,536 nodes. */
export function nodeIp(index: number): string {
  return `10.${(index >> 8) & 255}.${index & 255}.1`;
}

function conditions(nowText: string): Record<string, string>[] {
  const kinds: [string, string, string, string][] = [
    ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory'],
    ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
    ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
    ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
  ];
  return kinds.map(([type, status, reason, message]) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: nowText,
    lastTransitionTime: nowText,
  }));
}

const IMAGES = [
  ['registry.k8s.io/pause:3.10', 320_368],
  ['registry.k8s.io/kube-proxy:v1.32.0', 30_907_858],
  ['registry.k8s.io/coredns/coredns:v1.11.3', 18_562_039],
  ['docker.io/library/busybox:1.36', 2_167_089],
  ['docker.io/library/nginx:1.27', 72_099_410],
] as const;

function nodeStatus(name: string, index: number, nowMs: number): Record<string, unknown> {
  const resources = {
    cpu: '32',
    memory: '263801100Ki',
    pods: '110',
    'ephemeral-storage': '1056759528Ki',
    'hugepages-2Mi': '0',
  };
  return {
    capacity: resources,
    allocatable: { ...resources, memory: '263698700Ki' },
    conditions: conditions(rfc3339(nowMs)),
    addresses: [
      { type: 'InternalIP', address: nodeIp(index) },
      { type: 'Hostname', address: name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: hex(`m${name}`, 32),
      systemUUID: hex(`u${name}`, 32),
      bootID: hex(`b${name}`, 32),
      kernelVersion: '6.1.0-28-amd64',
      osImage: 'Debian GNU/Linux 12 (bookworm)',
      containerRuntimeVersion: 'containerd://1.7.24',
      kubeletVersion: 'v1.32.0',
      kubeProxyVersion: 'v1.32.0',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
    images: IMAGES.map(([image, size]) => ({
      names: [`${image.split(':')[0] ?? image}@sha256:${hex(image, 64)}`, image],
      sizeBytes: size,
    })),
  };
}

/** The Node a kubelet registers: labels, annotations and a full status. */
export function nodeObject(
  name: string,
  index: number,
  runId: string,
  nowMs: number,
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'bench-run': runId,
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
      },
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: {},
    status: nodeStatus(name, index, nowMs),
  };
}

/**
 * The node status patch a kubelet sends each nodeStatusReportFrequency (or on a change): every
 * condition's heartbeat, in strategic-merge form (conditions merge by type).
 */
export function nodeStatusPatch(nowMs: number): Record<string, unknown> {
  const now = rfc3339(nowMs);
  return {
    status: {
      conditions: conditions(now).map((c) => ({
        type: c['type'],
        lastHeartbeatTime: now,
      })),
    },
  };
}

/** The node's Lease, owned by its Node (as the kubelet creates it). */
export function leaseObject(
  node: string,
  nodeUid: string,
  runId: string,
  nowMs: number,
): Record<string, unknown> {
  return {
    apiVersion: LEASE_VERSION,
    kind: 'Lease',
    metadata: {
      name: node,
      namespace: 'kube-node-lease',
      labels: { 'bench-run': runId },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node, uid: nodeUid }],
    },
    spec: { holderIdentity: node, leaseDurationSeconds: 40, renewTime: microTime(nowMs) },
  };
}

/** The scheduler name of the simulator's pods: no scheduler of either server picks them up. */
export const SIM_SCHEDULER = 'bench-node-sim';

/**
 * A pod of one pause container, left unscheduled for the simulator's own binding. `command`: what
 * the container runs where a real agent runs it (process:// runs the command, not the image);
 * `node`: the node it will be bound to, as its `bench-node` label.
 */
export function podObject(
  name: string,
  ns: string,
  runId: string,
  command?: readonly string[],
  node?: string,
): Record<string, unknown> {
  const labels = {
    app: 'node-sim',
    'bench-run': runId,
    ...(node === undefined ? {} : { 'bench-node': node }),
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels },
    spec: {
      schedulerName: SIM_SCHEDULER,
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 30,
      containers: [
        {
          name: 'pause',
          image: 'registry.k8s.io/pause:3.10',
          ...(command === undefined ? {} : { command }),
          resources: { requests: { cpu: '10m', memory: '16Mi' } },
        },
      ],
    },
  };
}

/** The Binding a scheduler posts to pods/binding. */
export function bindingObject(pod: string, ns: string, node: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: pod, namespace: ns },
    target: { apiVersion: 'v1', kind: 'Node', name: node },
  };
}

/** The status patch a kubelet sends once a pod's container runs (strategic merge, uid precondition). */
export function runningPodPatch(
  uid: string,
  podIp: string,
  hostIp: string,
  nowMs: number,
): Record<string, unknown> {
  const now = rfc3339(nowMs);
  const cond = (type: string): Record<string, unknown> => ({
    type,
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: now,
  });
  return {
    metadata: { uid },
    status: {
      phase: 'Running',
      conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady'].map(
        cond,
      ),
      hostIP: hostIp,
      hostIPs: [{ ip: hostIp }],
      podIP: podIp,
      podIPs: [{ ip: podIp }],
      startTime: now,
      qosClass: 'Burstable',
      containerStatuses: [
        {
          name: 'pause',
          ready: true,
          started: true,
          restartCount: 0,
          image: 'registry.k8s.io/pause:3.10',
          imageID: `registry.k8s.io/pause@sha256:${hex('pause', 64)}`,
          containerID: `containerd://${hex(uid, 64)}`,
          state: { running: { startedAt: now } },
        },
      ],
    },
  };
}
