// Which Pod fields this agent makes take effect, per runtime: the one table to read (and to flip
// when a field gains its implementation). Every field of the reference's PodSpec, Container,
// security contexts, probes and volume sources has an entry (the Record types make the compiler
// insist); a field that is set and refused here refuses the pod at admission, naming the field,
// the runtime and why (refusals.ts walks the pod). Fields the scheduler or the API server reads
// (affinity, tolerations, priorityClassName...) take their effect there and are accepted.
import { isRecord } from '../../common/util/json-shape.js';
import type { Container, PodSpec, Probe, Volume } from './types.js';

export type RuntimeKind = 'docker' | 'process';

/** `true`: takes effect; a string: refused, and why. */
export type Effect = true | string;

export interface Support {
  readonly docker: Effect;
  readonly process: Effect;
  /** Whether the value asks for anything (default: set and not false, '' or []). */
  readonly asks?: (value: unknown) => boolean;
}

export const NOT_YET = 'not yet supported by this agent';
const NO_MOUNTS = 'it runs host processes, with no mount namespace to mount volumes into';
const NO_ISOLATION = 'it runs host processes without isolation';
const NO_UTS =
  "it runs host processes in the host's UTS and network namespaces: no hostname or " +
  '/etc/hosts of their own';

const YES: Support = { docker: true, process: true };
const notYet: Support = { docker: NOT_YET, process: NOT_YET };
const dockerOnly = (why: string): Support => ({ docker: true, process: why });
const neither = (why: string): Support => ({ docker: why, process: why });
/** Refused (not yet) only when the value is not `fine` (a default the agent does honour). */
const notYetUnless = (fine: (v: unknown) => boolean): Support => ({
  ...notYet,
  asks: (v) => !fine(v),
});

const NO_PLUGIN = neither('this agent has no volume plugin for it');

export const POD_SPEC: Record<
  Exclude<
    keyof PodSpec,
    'containers' | 'initContainers' | 'volumes' | 'securityContext' | 'ephemeralContainers'
  >,
  Support
> = {
  activeDeadlineSeconds: YES,
  affinity: YES, // the scheduler's
  automountServiceAccountToken: YES, // the API server's ServiceAccount admission
  dnsConfig: YES,
  dnsPolicy: YES,
  enableServiceLinks: YES, // the namespace's service variables (src/agent/env)
  hostAliases: dockerOnly(NO_UTS),
  hostIPC: YES, // host processes share the host's IPC namespace, which is what true asks
  hostNetwork: YES, // process:// pods always share the host's network
  hostPID: YES, // host processes share the host's PID namespace, which is what true asks
  hostUsers: notYetUnless((v) => v === true), // false asks for a user namespace
  hostname: dockerOnly(NO_UTS),
  // registry credentials for the pulls (worker/pull-credentials.ts); process:// pulls no image
  imagePullSecrets: YES,
  nodeName: YES,
  nodeSelector: YES, // the scheduler's
  os: YES,
  overhead: YES, // the scheduler's accounting (RuntimeClass)
  preemptionPolicy: YES,
  priority: YES,
  priorityClassName: YES,
  readinessGates: YES, // Ready waits for their conditions (worker/readiness-gates.ts)
  resourceClaims: neither(
    'dynamic resource allocation (resourceClaims) is not supported by this agent',
  ),
  resources: neither(
    'pod-level resources (the PodLevelResources feature) are not supported by this agent',
  ),
  restartPolicy: YES,
  // the RuntimeClass's handler (objects/runtime-classes.ts); one the runtime lacks fails the
  // sandbox
  runtimeClassName: YES,
  schedulerName: YES,
  schedulingGates: YES,
  serviceAccount: YES,
  serviceAccountName: YES,
  setHostnameAsFQDN: dockerOnly(NO_UTS),
  shareProcessNamespace: dockerOnly(`${NO_ISOLATION}: there is no pod PID namespace to share`),
  subdomain: dockerOnly(NO_UTS),
  terminationGracePeriodSeconds: YES,
  tolerations: YES,
  topologySpreadConstraints: YES,
};

/**
 * spec.ephemeralContainers as a whole (kubectl debug): each is started into the running pod
 * (worker/ephemeral-containers.ts), its own fields checked with CONTAINER when it starts.
 */
export const EPHEMERAL_CONTAINERS: Support = YES;

/** A profile (seccomp, AppArmor) asks for something unless it is Unconfined. */
const confines = (v: unknown): boolean => isRecord(v) && v['type'] !== 'Unconfined';
const NO_APPARMOR = `${NO_ISOLATION}: no AppArmor profile is applied`;
const NO_SECCOMP = `${NO_ISOLATION}: no seccomp filter is applied`;
const NO_SELINUX = `${NO_ISOLATION}: no SELinux label is applied`;

type PodSecurity = NonNullable<PodSpec['securityContext']>;
export const POD_SECURITY: Record<keyof PodSecurity, Support> = {
  // Docker applies it; a host without AppArmor refuses a confining profile at admission
  appArmorProfile: { ...dockerOnly(NO_APPARMOR), asks: confines },
  // process://: the supplementary group (hostPath volumes are not owned, as the reference)
  fsGroup: YES,
  fsGroupChangePolicy: YES,
  runAsGroup: YES, // process://: through setpriv when the agent is root
  runAsNonRoot: YES, // process://: the agent's own uid is the "image" user
  runAsUser: YES,
  seLinuxChangePolicy: notYet,
  seLinuxOptions: dockerOnly(NO_SELINUX),
  seccompProfile: { ...dockerOnly(NO_SECCOMP), asks: confines },
  supplementalGroups: YES,
  supplementalGroupsPolicy: {
    docker:
      "the Docker engine always adds the groups the image's /etc/group gives the user (Merge)",
    process: true,
    asks: (v) => v !== 'Merge',
  },
  sysctls: dockerOnly(`${NO_ISOLATION}: it has no namespaced sysctls`),
  windowsOptions: YES, // Windows-only: the reference's Linux kubelet reads none of it
};

type ContainerSecurity = NonNullable<Container['securityContext']>;
export const CONTAINER_SECURITY: Record<keyof ContainerSecurity, Support> = {
  // false asks for no_new_privs (process://: setpriv --no-new-privs); true is the default
  allowPrivilegeEscalation: { ...YES, asks: (v) => v === false },
  appArmorProfile: { ...dockerOnly(NO_APPARMOR), asks: confines },
  capabilities: dockerOnly(`${NO_ISOLATION}: no capability set is applied`),
  privileged: dockerOnly(`${NO_ISOLATION}: there is no privilege to grant`),
  // process:// processes see the host's /proc, unmasked, whatever the value
  procMount: { ...YES, asks: (v) => v !== 'Default' },
  readOnlyRootFilesystem: dockerOnly(`${NO_ISOLATION}: the root file system is the host's`),
  runAsGroup: YES,
  runAsNonRoot: YES,
  runAsUser: YES,
  seLinuxOptions: dockerOnly(NO_SELINUX),
  seccompProfile: { ...dockerOnly(NO_SECCOMP), asks: confines },
  windowsOptions: YES,
};

/**
 * The container fields walked on their own (securityContext, probes, env, mounts) are Support too.
 */
export const CONTAINER: Record<keyof Container, Support> = {
  args: YES,
  command: YES,
  env: YES, // value; valueFrom sources: ENV_SOURCE
  envFrom: YES, // ConfigMaps and Secrets through the node's object manager
  image: YES, // process:// records it and runs the command
  imagePullPolicy: YES,
  lifecycle: YES,
  livenessProbe: YES,
  name: YES,
  ports: YES,
  readinessProbe: YES,
  resizePolicy: YES, // in-place resize is off in 1.32 (InPlacePodVerticalScaling)
  resources: YES,
  restartPolicy: YES, // sidecars: init containers with restartPolicy Always
  securityContext: YES,
  startupProbe: YES,
  stdin: YES,
  stdinOnce: YES,
  terminationMessagePath: YES,
  terminationMessagePolicy: YES,
  tty: YES,
  volumeDevices: neither('raw block volumes (volumeDevices) are not supported by this agent'),
  // process://: the volume code accepts a hostPath at its own path, refuses the rest
  volumeMounts: YES,
  workingDir: YES,
};

/** env[].valueFrom sources. */
type EnvSource = NonNullable<NonNullable<Container['env']>[number]['valueFrom']>;
export const ENV_SOURCE: Record<keyof EnvSource, Support> = {
  configMapKeyRef: YES,
  fieldRef: YES,
  resourceFieldRef: YES,
  secretKeyRef: YES,
};

/** Probe handlers and fields (liveness, readiness, startup). */
export const PROBE: Record<keyof Probe, Support> = {
  exec: YES,
  failureThreshold: YES,
  grpc: YES,
  httpGet: YES,
  initialDelaySeconds: YES,
  periodSeconds: YES,
  successThreshold: YES,
  tcpSocket: YES,
  // a liveness or startup probe's failure kills with it (worker/pod-sync.ts restartGrace)
  terminationGracePeriodSeconds: YES,
  timeoutSeconds: YES,
};

type Mount = NonNullable<Container['volumeMounts']>[number];
export const VOLUME_MOUNT: Record<keyof Mount, Support> = {
  mountPath: YES,
  mountPropagation: { ...dockerOnly(NO_MOUNTS), asks: (v) => v !== 'None' },
  name: YES,
  readOnly: YES,
  recursiveReadOnly: notYetUnless((v) => v === 'Disabled'),
  subPath: YES,
  subPathExpr: dockerOnly(NO_MOUNTS),
};

/** Volume sources: a pod with a refused source is refused. */
export const VOLUME: Record<Exclude<keyof Volume, 'name'>, Support> = {
  awsElasticBlockStore: NO_PLUGIN,
  azureDisk: NO_PLUGIN,
  azureFile: NO_PLUGIN,
  cephfs: NO_PLUGIN,
  cinder: NO_PLUGIN,
  configMap: dockerOnly(NO_MOUNTS),
  csi: NO_PLUGIN,
  downwardAPI: dockerOnly(NO_MOUNTS),
  emptyDir: dockerOnly(NO_MOUNTS),
  ephemeral: NO_PLUGIN,
  fc: NO_PLUGIN,
  flexVolume: dockerOnly(NO_MOUNTS),
  flocker: NO_PLUGIN,
  gcePersistentDisk: NO_PLUGIN,
  gitRepo: NO_PLUGIN,
  glusterfs: NO_PLUGIN,
  hostPath: YES,
  image: NO_PLUGIN,
  iscsi: NO_PLUGIN,
  nfs: NO_PLUGIN,
  persistentVolumeClaim: NO_PLUGIN,
  photonPersistentDisk: NO_PLUGIN,
  portworxVolume: NO_PLUGIN,
  projected: dockerOnly(NO_MOUNTS),
  quobyte: NO_PLUGIN,
  rbd: NO_PLUGIN,
  scaleIO: NO_PLUGIN,
  secret: dockerOnly(NO_MOUNTS),
  storageos: NO_PLUGIN,
  vsphereVolume: NO_PLUGIN,
};

/** emptyDir's medium: Memory asks for a tmpfs. */
export const EMPTY_DIR_MEMORY: Support = dockerOnly(NO_MOUNTS);
