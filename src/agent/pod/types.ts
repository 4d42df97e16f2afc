// The part of a pod the node agent acts on. Schemas are zod objects, loose (passthrough) so that
// fields we do not interpret (and fields of newer API versions) survive a round trip to the
// API server and into the config hash unchanged.
import { z } from 'zod';

const quantity = z.union([z.string(), z.number()]).transform((v) => String(v));
const intOrString = z.union([z.number().int(), z.string()]);

export const ExecActionSchema = z.object({ command: z.array(z.string()).min(1) }).loose();
export const HttpGetActionSchema = z
  .object({
    path: z.string().optional(),
    port: intOrString,
    host: z.string().optional(),
    scheme: z.string().optional(),
    httpHeaders: z.array(z.object({ name: z.string(), value: z.string() }).loose()).optional(),
  })
  .loose();
export const TcpSocketActionSchema = z
  .object({ port: intOrString, host: z.string().optional() })
  .loose();

export const ProbeSchema = z
  .object({
    exec: ExecActionSchema.optional(),
    httpGet: HttpGetActionSchema.optional(),
    tcpSocket: TcpSocketActionSchema.optional(),
    initialDelaySeconds: z.number().int().optional(),
    timeoutSeconds: z.number().int().optional(),
    periodSeconds: z.number().int().optional(),
    successThreshold: z.number().int().optional(),
    failureThreshold: z.number().int().optional(),
  })
  .loose();

export const EnvVarSchema = z
  .object({ name: z.string().min(1), value: z.string().optional() })
  .loose();
export const ContainerPortSchema = z
  .object({
    name: z.string().optional(),
    containerPort: z.number().int(),
    hostPort: z.number().int().optional(),
    hostIP: z.string().optional(),
    protocol: z.string().optional(),
  })
  .loose();
export const ResourceListSchema = z.record(z.string(), quantity);
export const ResourcesSchema = z
  .object({ requests: ResourceListSchema.optional(), limits: ResourceListSchema.optional() })
  .loose();
export const SecurityContextSchema = z
  .object({
    runAsUser: z.number().int().min(0).optional(),
    runAsGroup: z.number().int().min(0).optional(),
    runAsNonRoot: z.boolean().optional(),
    privileged: z.boolean().optional(),
    readOnlyRootFilesystem: z.boolean().optional(),
  })
  .loose();
export const VolumeMountSchema = z
  .object({
    name: z.string().min(1),
    mountPath: z.string().min(1),
    readOnly: z.boolean().optional(),
    subPath: z.string().optional(),
    subPathExpr: z.string().optional(),
    mountPropagation: z.string().optional(),
  })
  .loose();

export const ContainerSchema = z
  .object({
    name: z.string(),
    image: z.string().optional(),
    imagePullPolicy: z.enum(['Always', 'IfNotPresent', 'Never']).optional(),
    command: z.array(z.string()).optional(),
    args: z.array(z.string()).optional(),
    env: z.array(EnvVarSchema).optional(),
    workingDir: z.string().optional(),
    ports: z.array(ContainerPortSchema).optional(),
    resources: ResourcesSchema.optional(),
    securityContext: SecurityContextSchema.optional(),
    livenessProbe: ProbeSchema.optional(),
    readinessProbe: ProbeSchema.optional(),
    startupProbe: ProbeSchema.optional(),
    volumeMounts: z.array(VolumeMountSchema).optional(),
    stdin: z.boolean().optional(),
    stdinOnce: z.boolean().optional(),
    tty: z.boolean().optional(),
  })
  .loose();

const KeyToPathSchema = z
  .object({ key: z.string(), path: z.string(), mode: z.number().int().optional() })
  .loose();
const ObjectFieldSelectorSchema = z
  .object({ apiVersion: z.string().optional(), fieldPath: z.string() })
  .loose();
const ResourceFieldSelectorSchema = z
  .object({
    containerName: z.string().optional(),
    resource: z.string(),
    divisor: quantity.optional(),
  })
  .loose();
const DownwardAPIVolumeFileSchema = z
  .object({
    path: z.string(),
    fieldRef: ObjectFieldSelectorSchema.optional(),
    resourceFieldRef: ResourceFieldSelectorSchema.optional(),
    mode: z.number().int().optional(),
  })
  .loose();
const ConfigMapProjectionSchema = z
  .object({
    name: z.string().optional(),
    items: z.array(KeyToPathSchema).optional(),
    optional: z.boolean().optional(),
  })
  .loose();
const LabelSelectorSchema = z
  .object({
    matchLabels: z.record(z.string(), z.string()).optional(),
    matchExpressions: z
      .array(
        z
          .object({
            key: z.string(),
            operator: z.string(),
            values: z.array(z.string()).optional(),
          })
          .loose(),
      )
      .optional(),
  })
  .loose();
const VolumeProjectionSchema = z
  .object({
    secret: ConfigMapProjectionSchema.optional(),
    configMap: ConfigMapProjectionSchema.optional(),
    downwardAPI: z
      .object({ items: z.array(DownwardAPIVolumeFileSchema).optional() })
      .loose()
      .optional(),
    serviceAccountToken: z
      .object({
        audience: z.string().optional(),
        expirationSeconds: z.number().int().optional(),
        path: z.string(),
      })
      .loose()
      .optional(),
    clusterTrustBundle: z
      .object({
        name: z.string().optional(),
        signerName: z.string().optional(),
        labelSelector: LabelSelectorSchema.optional(),
        optional: z.boolean().optional(),
        path: z.string(),
      })
      .loose()
      .optional(),
  })
  .loose();

export const VolumeSchema = z
  .object({
    name: z.string().min(1),
    configMap: ConfigMapProjectionSchema.extend({ defaultMode: z.number().int().optional() })
      .loose()
      .optional(),
    secret: z
      .object({
        secretName: z.string().optional(),
        items: z.array(KeyToPathSchema).optional(),
        defaultMode: z.number().int().optional(),
        optional: z.boolean().optional(),
      })
      .loose()
      .optional(),
    downwardAPI: z
      .object({
        items: z.array(DownwardAPIVolumeFileSchema).optional(),
        defaultMode: z.number().int().optional(),
      })
      .loose()
      .optional(),
    projected: z
      .object({
        sources: z.array(VolumeProjectionSchema).optional(),
        defaultMode: z.number().int().optional(),
      })
      .loose()
      .optional(),
    hostPath: z
      .object({ path: z.string().min(1), type: z.string().optional() })
      .loose()
      .optional(),
    emptyDir: z
      .object({ medium: z.string().optional(), sizeLimit: quantity.optional() })
      .loose()
      .optional(),
    flexVolume: z
      .object({
        driver: z.string(),
        fsType: z.string().optional(),
        readOnly: z.boolean().optional(),
        options: z.record(z.string(), z.string()).optional(),
        secretRef: z.object({ name: z.string().optional() }).loose().optional(),
      })
      .loose()
      .optional(),
  })
  .loose();

export const TolerationSchema = z
  .object({
    key: z.string().optional(),
    operator: z.enum(['Exists', 'Equal']).optional(),
    value: z.string().optional(),
    effect: z.string().optional(),
    tolerationSeconds: z.number().int().optional(),
  })
  .loose();

export const PodSecurityContextSchema = z
  .object({
    fsGroup: z.number().int().optional(),
    fsGroupChangePolicy: z.string().optional(),
  })
  .loose();

export const PodSpecSchema = z
  .object({
    containers: z.array(ContainerSchema).min(1, 'a pod needs at least one container'),
    initContainers: z.array(ContainerSchema).optional(),
    restartPolicy: z.enum(['Always', 'OnFailure', 'Never']).optional(),
    volumes: z.array(VolumeSchema).optional(),
    hostNetwork: z.boolean().optional(),
    terminationGracePeriodSeconds: z.number().int().min(0).optional(),
    nodeName: z.string().optional(),
    priority: z.number().int().optional(),
    tolerations: z.array(TolerationSchema).optional(),
    securityContext: PodSecurityContextSchema.optional(),
    serviceAccountName: z.string().optional(),
  })
  .loose();

export const ObjectMetaSchema = z
  .object({
    name: z.string().optional(),
    namespace: z.string().optional(),
    uid: z.string().optional(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
    resourceVersion: z.string().optional(),
    deletionTimestamp: z.string().optional(),
    deletionGracePeriodSeconds: z.number().int().optional(),
    creationTimestamp: z.string().nullable().optional(),
  })
  .loose();

export const PodSchema = z
  .object({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: ObjectMetaSchema,
    spec: PodSpecSchema,
    status: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

export type Probe = z.infer<typeof ProbeSchema>;
export type Container = z.infer<typeof ContainerSchema>;
export type Volume = z.infer<typeof VolumeSchema>;
export type VolumeMount = z.infer<typeof VolumeMountSchema>;
export type KeyToPath = z.infer<typeof KeyToPathSchema>;
export type DownwardAPIVolumeFile = z.infer<typeof DownwardAPIVolumeFileSchema>;
export type VolumeProjection = z.infer<typeof VolumeProjectionSchema>;
export type PodSpec = z.infer<typeof PodSpecSchema>;
export type ObjectMeta = z.infer<typeof ObjectMetaSchema>;
export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';

/** A pod after decoding and defaulting: name, namespace and uid are always set. */
export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta & { name: string; namespace: string; uid: string };
  spec: PodSpec;
  status?: Record<string, unknown>;
  [extra: string]: unknown;
}

// ---- status ----
export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

export interface ContainerStateWaiting {
  reason: string;
  message?: string;
}
export interface ContainerStateRunning {
  startedAt: string;
}
export interface ContainerStateTerminated {
  exitCode: number;
  signal?: number;
  reason: string;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  containerID?: string;
}
export interface ContainerState {
  waiting?: ContainerStateWaiting;
  running?: ContainerStateRunning;
  terminated?: ContainerStateTerminated;
}

export interface ContainerStatus {
  name: string;
  state: ContainerState;
  lastState: ContainerState;
  ready: boolean;
  started?: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
}

export interface PodCondition {
  type:
    | 'PodScheduled'
    | 'Initialized'
    | 'ContainersReady'
    | 'Ready'
    | 'PodReadyToStartContainers'
    | 'DisruptionTarget';
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface PodStatus {
  phase: PodPhase;
  conditions: PodCondition[];
  message?: string;
  reason?: string;
  hostIP?: string;
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses: ContainerStatus[];
}

export function podFullName(pod: Pick<Pod, 'metadata'>): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}`;
}

export function restartPolicyOf(pod: Pod): RestartPolicy {
  return pod.spec.restartPolicy ?? 'Always';
}
