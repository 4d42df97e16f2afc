// Pod and Node: metadata strict, spec and status open. Only the fields with a value rule are typed:
// the reference's int32/int64 fields (range checked) and Time fields (parsed, stored in UTC), and
// the lists with a merge rule (strategic merge keys, server-side-apply list types).
import { topLevel } from './meta.js';
import { any, arr, atomicList, int32, int64, keyed, openObj, str, time, type Schema } from './types.js';

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
  ports: keyed(openObj('v1.ContainerPort', { containerPort: int32, hostPort: int32 }, { required: ['containerPort'] }), 'containerPort', 'protocol'),
  env: keyed(named('v1.EnvVar'), 'name'),
  volumeMounts: keyed(named('v1.VolumeMount'), 'mountPath'),
  volumeDevices: keyed(named('v1.VolumeDevice'), 'devicePath'),
  resizePolicy: atomicList(named('v1.ContainerResizePolicy')),
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  securityContext,
};
const container = openObj('v1.Container', containerFields, { required: ['name'] });
const ephemeralContainer = openObj('v1.EphemeralContainer', containerFields, { required: ['name'] });

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

const containerStatus = openObj('v1.ContainerStatus', { state: containerState, lastState: containerState, restartCount: int32 }, { required: ['name', 'ready', 'restartCount', 'image', 'imageID'] });

const podStatus = openObj('v1.PodStatus', {
  startTime: time,
  conditions: keyed(openObj('v1.PodCondition', { lastProbeTime: time, lastTransitionTime: time }, { required: ['type', 'status'] }), 'type'),
  podIPs: keyed(named('v1.PodIP'), 'ip'),
  // The reference merges hostIPs by ip in strategic merge but applies them whole.
  hostIPs: arr(named('v1.HostIP'), { listType: 'atomic', patchStrategy: 'merge', patchMergeKey: 'ip' }),
  containerStatuses: atomicList(containerStatus),
  initContainerStatuses: atomicList(containerStatus),
  ephemeralContainerStatuses: atomicList(containerStatus),
});

export const pod: Schema = topLevel('v1.Pod', { spec: podSpec, status: podStatus });

const nodeSpec = openObj('v1.NodeSpec', {
  taints: atomicList(openObj('v1.Taint', { timeAdded: time }, { required: ['key', 'effect'] })),
  podCIDRs: arr(str, { listType: 'set', patchStrategy: 'merge' }),
});
const nodeStatus = openObj('v1.NodeStatus', {
  addresses: keyed(named('v1.NodeAddress'), 'type'),
  conditions: keyed(openObj('v1.NodeCondition', { lastHeartbeatTime: time, lastTransitionTime: time }, { required: ['type', 'status'] }), 'type'),
  volumesAttached: atomicList(named('v1.AttachedVolume')),
  daemonEndpoints: openObj('v1.NodeDaemonEndpoints', { kubeletEndpoint: openObj('v1.DaemonEndpoint', { Port: int32 }, { required: ['Port'] }) }),
});

export const node: Schema = topLevel('v1.Node', { spec: nodeSpec, status: nodeStatus });
