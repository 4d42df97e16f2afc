// Pod and Node: metadata strict, spec and status open. Only the fields with a value rule are typed:
// the reference's int32/int64 fields (range checked) and Time fields (parsed, stored in UTC).
import { topLevel } from './meta.js';
import { any, arr, int32, int64, openObj, time, type Schema } from './types.js';

const probe = openObj('v1.Probe', {
  initialDelaySeconds: int32,
  timeoutSeconds: int32,
  periodSeconds: int32,
  successThreshold: int32,
  failureThreshold: int32,
  terminationGracePeriodSeconds: int64,
  grpc: openObj('v1.GRPCAction', { port: int32 }),
});

const securityContext = openObj('v1.SecurityContext', { runAsUser: int64, runAsGroup: int64 });

const container = openObj('v1.Container', {
  ports: arr(openObj('v1.ContainerPort', { containerPort: int32, hostPort: int32 })),
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  securityContext,
});

const keyToPath = arr(openObj('v1.KeyToPath', { mode: int32 }));
const volume = openObj('v1.Volume', {
  secret: openObj('v1.SecretVolumeSource', { defaultMode: int32, items: keyToPath }),
  configMap: openObj('v1.ConfigMapVolumeSource', { defaultMode: int32, items: keyToPath }),
  downwardAPI: openObj('v1.DownwardAPIVolumeSource', { defaultMode: int32, items: arr(openObj('v1.DownwardAPIVolumeFile', { mode: int32 })) }),
  projected: openObj('v1.ProjectedVolumeSource', { defaultMode: int32 }),
});

const podSpec = openObj('v1.PodSpec', {
  activeDeadlineSeconds: int64,
  terminationGracePeriodSeconds: int64,
  priority: int32,
  containers: arr(container),
  initContainers: arr(container),
  ephemeralContainers: arr(container),
  volumes: arr(volume),
  securityContext: openObj('v1.PodSecurityContext', { runAsUser: int64, runAsGroup: int64, fsGroup: int64, supplementalGroups: arr(int64) }),
});

const containerState = openObj('v1.ContainerState', {
  running: openObj('v1.ContainerStateRunning', { startedAt: time }),
  terminated: openObj('v1.ContainerStateTerminated', { exitCode: int32, signal: int32, startedAt: time, finishedAt: time }),
  waiting: any,
});

const containerStatus = openObj('v1.ContainerStatus', { state: containerState, lastState: containerState, restartCount: int32 });

const podStatus = openObj('v1.PodStatus', {
  startTime: time,
  conditions: arr(openObj('v1.PodCondition', { lastProbeTime: time, lastTransitionTime: time })),
  containerStatuses: arr(containerStatus),
  initContainerStatuses: arr(containerStatus),
  ephemeralContainerStatuses: arr(containerStatus),
});

export const pod: Schema = topLevel('v1.Pod', { spec: podSpec, status: podStatus });

const nodeSpec = openObj('v1.NodeSpec', { taints: arr(openObj('v1.Taint', { timeAdded: time })) });
const nodeStatus = openObj('v1.NodeStatus', {
  conditions: arr(openObj('v1.NodeCondition', { lastHeartbeatTime: time, lastTransitionTime: time })),
  daemonEndpoints: openObj('v1.NodeDaemonEndpoints', { kubeletEndpoint: openObj('v1.DaemonEndpoint', { Port: int32 }) }),
});

export const node: Schema = topLevel('v1.Node', { spec: nodeSpec, status: nodeStatus });
