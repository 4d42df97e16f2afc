// Pod and Node: metadata strict, spec and status open (fields not listed are kept as sent; their
// full types belong to the agent). Listed and typed: the reference's int32/int64 fields (range
// checked) and Time fields (parsed, stored in UTC), the lists with a merge rule (strategic merge
// keys, server-side-apply list types) and the common scalar fields, which the OpenAPI documents
// show (`kubectl explain`).
import { topLevel } from './meta.js';
import { any, arr, atomicList, atomicMap, bool, int32, int64, keyed, openObj, str, time, type Schema } from './types.js';

const named = (name: string): Schema => openObj(name, {});

const probe = openObj('v1.Probe', {
  initialDelaySeconds: int32,
  timeoutSeconds: int32,
  periodSeconds: int32,
  successThreshold: int32,
  failureThreshold: int32,
  terminationGracePeriodSeconds: int64,
  grpc: openObj('v1.GRPCAction', { port: int32 }, { required: ['port'] }),
});

const securityContext = openObj('v1.SecurityContext', { runAsUser: int64, runAsGroup: int64 });

const containerFields: Record<string, Schema> = {
  name: str,
  image: str,
  command: atomicList(str),
  args: atomicList(str),
  workingDir: str,
  imagePullPolicy: str,
  terminationMessagePath: str,
  terminationMessagePolicy: str,
  restartPolicy: str,
  stdin: bool,
  stdinOnce: bool,
  tty: bool,
  resources: named('v1.ResourceRequirements'),
  envFrom: atomicList(named('v1.EnvFromSource')),
  lifecycle: named('v1.Lifecycle'),
  ports: keyed(openObj('v1.ContainerPort', { containerPort: int32, hostPort: int32 }, { required: ['containerPort'] }), 'containerPort', 'protocol'),
  env: keyed(openObj('v1.EnvVar', { name: str, value: str }, { required: ['name'] }), 'name'),
  volumeMounts: keyed(openObj('v1.VolumeMount', { name: str, mountPath: str, readOnly: bool, subPath: str }, { required: ['name', 'mountPath'] }), 'mountPath'),
  volumeDevices: keyed(named('v1.VolumeDevice'), 'devicePath'),
  resizePolicy: atomicList(named('v1.ContainerResizePolicy')),
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  securityContext,
};
const container = openObj('v1.Container', containerFields, { required: ['name'] });
const ephemeralContainer = openObj('v1.EphemeralContainer', { ...containerFields, targetContainerName: str }, { required: ['name'] });

const keyToPath = atomicList(openObj('v1.KeyToPath', { mode: int32 }, { required: ['key', 'path'] }));
const volume = openObj('v1.Volume', {
  name: str,
  secret: openObj('v1.SecretVolumeSource', { defaultMode: int32, items: keyToPath }),
  configMap: openObj('v1.ConfigMapVolumeSource', { defaultMode: int32, items: keyToPath }),
  downwardAPI: openObj('v1.DownwardAPIVolumeSource', { defaultMode: int32, items: atomicList(openObj('v1.DownwardAPIVolumeFile', { mode: int32 }, { required: ['path'] })) }),
  projected: openObj('v1.ProjectedVolumeSource', { defaultMode: int32 }),
}, { required: ['name'] });

const podSpec = openObj(
  'v1.PodSpec',
  {
    activeDeadlineSeconds: int64,
    terminationGracePeriodSeconds: int64,
    priority: int32,
    restartPolicy: str,
    nodeName: str,
    nodeSelector: atomicMap(str),
    serviceAccountName: str,
    automountServiceAccountToken: bool,
    hostNetwork: bool,
    hostPID: bool,
    hostIPC: bool,
    shareProcessNamespace: bool,
    hostname: str,
    subdomain: str,
    dnsPolicy: str,
    schedulerName: str,
    priorityClassName: str,
    runtimeClassName: str,
    enableServiceLinks: bool,
    tolerations: atomicList(named('v1.Toleration')),
    containers: keyed(container, 'name'),
    initContainers: keyed(container, 'name'),
    ephemeralContainers: keyed(ephemeralContainer, 'name'),
    volumes: arr(volume, { listType: 'map', mapKeys: ['name'], patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' }),
    imagePullSecrets: keyed(openObj('v1.LocalObjectReference', { name: str }, { atomic: true }), 'name'),
    hostAliases: keyed(named('v1.HostAlias'), 'ip'),
    securityContext: openObj('v1.PodSecurityContext', { runAsUser: int64, runAsGroup: int64, fsGroup: int64, supplementalGroups: atomicList(int64) }),
    },
  { required: ['containers'] },
);

const containerState = openObj('v1.ContainerState', {
  running: openObj('v1.ContainerStateRunning', { startedAt: time }),
  terminated: openObj('v1.ContainerStateTerminated', { exitCode: int32, signal: int32, startedAt: time, finishedAt: time }, { required: ['exitCode'] }),
  waiting: any,
});

const containerStatus = openObj(
  'v1.ContainerStatus',
  { name: str, state: containerState, lastState: containerState, ready: bool, restartCount: int32, image: str, imageID: str, containerID: str, started: bool },
  { required: ['name', 'ready', 'restartCount', 'image', 'imageID'] },
);

const podStatus = openObj('v1.PodStatus', {
  phase: str,
  message: str,
  reason: str,
  hostIP: str,
  podIP: str,
  nominatedNodeName: str,
  qosClass: str,
  startTime: time,
  conditions: keyed(openObj('v1.PodCondition', { type: str, status: str, reason: str, message: str, lastProbeTime: time, lastTransitionTime: time }, { required: ['type', 'status'] }), 'type'),
  podIPs: keyed(openObj('v1.PodIP', { ip: str }, { required: ['ip'] }), 'ip'),
  // The reference merges hostIPs by ip in strategic merge but applies them whole.
  hostIPs: arr(openObj('v1.HostIP', { ip: str }, { required: ['ip'] }), { listType: 'atomic', patchStrategy: 'merge', patchMergeKey: 'ip' }),
  containerStatuses: atomicList(containerStatus),
  initContainerStatuses: atomicList(containerStatus),
  ephemeralContainerStatuses: atomicList(containerStatus),
});

export const pod: Schema = topLevel('v1.Pod', { spec: podSpec, status: podStatus });

/** The fields of NodeSystemInfo, all strings the reference requires. */
const NODE_INFO = ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture'];

const nodeSpec = openObj('v1.NodeSpec', {
  podCIDR: str,
  providerID: str,
  unschedulable: bool,
  taints: atomicList(openObj('v1.Taint', { key: str, value: str, effect: str, timeAdded: time }, { required: ['key', 'effect'] })),
  podCIDRs: arr(str, { listType: 'set', patchStrategy: 'merge' }),
});
const nodeStatus = openObj('v1.NodeStatus', {
  phase: str,
  nodeInfo: openObj('v1.NodeSystemInfo', Object.fromEntries(NODE_INFO.map((k) => [k, str])), { required: NODE_INFO }),
  addresses: keyed(openObj('v1.NodeAddress', { type: str, address: str }, { required: ['type', 'address'] }), 'type'),
  conditions: keyed(openObj('v1.NodeCondition', { type: str, status: str, reason: str, message: str, lastHeartbeatTime: time, lastTransitionTime: time }, { required: ['type', 'status'] }), 'type'),
  volumesAttached: atomicList(named('v1.AttachedVolume')),
  daemonEndpoints: openObj('v1.NodeDaemonEndpoints', { kubeletEndpoint: openObj('v1.DaemonEndpoint', { Port: int32 }, { required: ['Port'] }) }),
});

export const node: Schema = topLevel('v1.Node', { spec: nodeSpec, status: nodeStatus });
