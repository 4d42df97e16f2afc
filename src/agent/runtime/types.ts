// The runtime interface the pod workers drive. It is CRI-shaped (sandbox + containers) so that
// the Docker engine, CRI runtimes (containerd, CRI-O) and plain host processes fit behind it.
import { userMessage } from '../../common/util/errors.js';
import type { Duplex } from 'node:stream';
import type { Container, Pod } from '../pod/types.js';
import type { ContainerEnvironment } from '../pod/expand.js';

/** ephemeral: a container added to a running pod (kubectl debug), started once, never restarted. */
export type ContainerKind = 'sandbox' | 'init' | 'app' | 'ephemeral';
export type ContainerRunState = 'created' | 'running' | 'exited' | 'unknown';

/** One container (or sandbox) as the runtime knows it, rebuilt from labels after a restart. */
export interface RuntimeContainer {
  id: string;
  podUid: string;
  podName: string;
  podNamespace: string;
  /** Container name; '' for a sandbox. */
  name: string;
  kind: ContainerKind;
  attempt: number;
  /** Hash of the container spec it was created from: a changed spec means replace it. */
  specHash: string;
  image: string;
  imageId: string;
  state: ContainerRunState;
  exitCode?: number;
  /** Why it ended, e.g. Completed, Error, OOMKilled, ContainerCannotRun. */
  reason?: string;
  /** What the runtime says about how it ended (the engine's error when it could not run). */
  message?: string;
  /** The host file the container's terminationMessagePath is (see termination-message.ts). */
  terminationMessageFile?: string;
  createdAtMs: number;
  startedAtMs?: number;
  finishedAtMs?: number;
  /** Containers: the sandbox they belong to. */
  sandboxId?: string;
  /** Sandboxes: the pod's IP address. */
  ip?: string;
}

export interface SandboxConfig {
  pod: Pod;
  attempt: number;
  /**
   * The handler of the pod's RuntimeClass (runtimeClassName); absent or '': the runtime's default.
   */
  runtimeHandler?: string;
}

export interface ContainerConfig {
  pod: Pod;
  container: Container;
  kind: Exclude<ContainerKind, 'sandbox'>;
  attempt: number;
  specHash: string;
  sandboxId: string;
  /** Host directories for the pod's volumes, by volume name (emptyDir already created). */
  volumePaths: Record<string, string>;
  /**
   * A fresh, empty host file (mode 0666) for the container's terminationMessagePath: Docker
   * mounts it there, process:// names it in NODEAGENT_TERMINATION_MESSAGE_PATH.
   */
  terminationMessageFile?: string;
  /**
   * The container's mounts as the volume manager made them (subPath resolved); binds of volumePaths
   * when absent.
   */
  mounts?: readonly ContainerMount[];
  /**
   * The environment, command and args as the worker resolved them (env sources, service
   * variables, $(VAR)); when absent, env[].value only (pod/expand.ts plainEnvironment).
   */
  environment?: ContainerEnvironment;
  /**
   * Ephemeral containers with targetContainerName: the runtime id of the container whose PID
   * namespace they join.
   */
  targetContainerId?: string;
}

/** One volume mount of a container: a host path bound at a container path. */
export interface ContainerMount {
  name: string;
  hostPath: string;
  containerPath: string;
  readOnly: boolean;
  /**
   * The bind's propagation: None → rprivate, HostToContainer → rslave,
   * Bidirectional → rshared.
   */
  propagation: 'rprivate' | 'rslave' | 'rshared';
}

export interface ExecResult {
  exitCode: number;
  output: string;
}

export interface ContainerStats {
  cpuUsageNanoCores?: number;
  cpuUsageCoreNanoSeconds?: number;
  memoryWorkingSetBytes?: number;
  memoryRssBytes?: number;
}

/** One network interface's counters (bytes and errors since it came up). */
export interface NetworkInterfaceStats {
  name: string;
  rxBytes?: number;
  rxErrors?: number;
  txBytes?: number;
  txErrors?: number;
}

/** A pod's use measured by the runtime for its whole sandbox (CRI ListPodSandboxStats). */
export interface PodStats extends ContainerStats {
  /** The sandbox's network: its default interface (eth0) and every interface. */
  network?: { defaultInterface?: NetworkInterfaceStats; interfaces: NetworkInterfaceStats[] };
}

/** Every container's stats, and the pods' where the runtime measures them, from one pass. */
export interface RuntimeStatsSnapshot {
  /** By container id. */
  readonly containers: ReadonlyMap<string, ContainerStats>;
  /** By pod uid; a pod absent here: the runtime measures no pod-level use (its containers' sum). */
  readonly pods: ReadonlyMap<string, PodStats>;
}

export interface RuntimeVersion {
  runtimeName: string;
  runtimeVersion: string;
  runtimeApiVersion: string;
}

export type ContainerEventListener = (event: {
  podUid: string;
  containerId: string;
  type: 'exited' | 'started';
}) => void;

/** A process started by execStream: its pipes, its exit code, and a way to end it. */
export interface ExecSession {
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
  readonly stderr: NodeJS.ReadableStream;
  /** Resolves with the exit code (128 + signal number when killed by a signal). */
  readonly exited: Promise<number>;
  kill(): void;
  /** The terminal's new size (sessions started with tty); absent: no terminal. */
  resize?(cols: number, rows: number): void;
}

/** Options of an attach to a container's own process (its stdio). */
export interface AttachOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** One line of a container's output and its time as the runtime recorded it. */
export interface TimedLogLine {
  /** RFC 3339 with the runtime's precision (Docker: nanoseconds), as the reference prints it. */
  readonly time: string;
  /** The line with its newline (the last line of a log may have none). */
  readonly text: string;
}

export interface ContainerRuntime {
  /**
   * `docker`, `process`, or a CRI runtime's name as its Version call gives it (`containerd`,
   * `cri-o`); also the containerID scheme (`docker://<id>`, `containerd://<id>`).
   */
  readonly type: 'docker' | 'process' | (string & {});
  version(): Promise<RuntimeVersion>;
  runPodSandbox(cfg: SandboxConfig): Promise<string>;
  stopPodSandbox(id: string, graceSeconds: number): Promise<void>;
  removePodSandbox(id: string): Promise<void>;
  createContainer(cfg: ContainerConfig): Promise<string>;
  startContainer(id: string): Promise<void>;
  /** SIGTERM, up to `graceSeconds`, then SIGKILL. Stopping a stopped container is fine. */
  stopContainer(id: string, graceSeconds: number): Promise<void>;
  removeContainer(id: string): Promise<void>;
  /** Containers and sandboxes this agent created, optionally of one pod. */
  listContainers(filter?: { podUid?: string }): Promise<RuntimeContainer[]>;
  /** The container's output (stdout and stderr interleaved). */
  logs(id: string, opts?: { tailLines?: number }): Promise<string>;
  /**
   * The container's output line by line with the time the runtime recorded for each (what
   * sinceSeconds, sinceTime and timestamps of /containerLogs need); only lines at or after
   * `sinceMs` when given. Runtimes that record no per-line times do not have it.
   */
  timedLogs?(id: string, opts?: { tailLines?: number; sinceMs?: number }): Promise<TimedLogLine[]>;
  /** Path of the log file, when the runtime keeps one on the host (for rotation). */
  logPath?(id: string): string | undefined;
  /**
   * Has the runtime open the container's log file again (CRI ReopenContainerLog) after the agent
   * renamed it: runtimes that have it get their logs rotated the reference's way
   * (gc/log-rotation.ts).
   */
  reopenContainerLog?(id: string): Promise<void>;
  /**
   * The file the container's output goes to on the host (Docker's json-file log), for podLogsDir.
   */
  hostLogFile?(id: string): Promise<string | undefined>;
  exec(id: string, command: readonly string[], timeoutMs: number): Promise<ExecResult>;
  /** An interactive exec: the process's pipes, for the streaming endpoints (exec, attach). */
  execStream?(id: string, command: readonly string[], opts: { tty: boolean }): Promise<ExecSession>;
  /**
   * Attaches to the container's process: its output from now on, its stdin when the container
   * keeps one open (spec stdin). `exited` resolves when the attach ends (the container exited or
   * kill() detached); kill() detaches, never stops the container.
   */
  attachStream?(id: string, opts: AttachOptions): Promise<ExecSession>;
  /** A connection to `port` inside the pod's network (Docker: through the sandbox's namespace). */
  connectPort?(podUid: string, port: number): Promise<Duplex>;
  stats?(id: string): Promise<ContainerStats | undefined>;
  /** Every container's stats (and the pods') in one call, where the runtime lists them. */
  listStats?(): Promise<RuntimeStatsSnapshot>;
  /**
   * The pod network's subnet (standalone --pod-cidr), as the reference's CRI UpdateRuntimeConfig.
   */
  updatePodCIDR?(podCIDR: string): void;
  /** Subscribe to container exits (and starts) so workers react without waiting for a resync. */
  onEvent(listener: ContainerEventListener): void;
  /** Release connections and timers; leaves containers running. */
  close(): Promise<void>;
}

export interface ImageInfo {
  id: string;
  tags: string[];
  sizeBytes: number;
  createdAtMs: number;
}

export interface ImageFsInfo {
  capacityBytes: number;
  usedBytes: number;
  inodes?: number;
  inodesFree?: number;
}

/** One registry credential for a pull (Docker's X-Registry-Auth, CRI's AuthConfig). */
export interface RegistryCredential {
  username: string;
  password: string;
  serveraddress: string;
}

/** What ensureImage did: the image's ID, and the pull when the policy made one. */
export interface EnsuredImage {
  id: string;
  /** Absent when the image was already present (and the policy was not Always). */
  pulled?: {
    /** The pull itself, from when it got a pull slot (serialized or parallel pulls) to its end. */
    durationMs: number;
    /** The pulled image's size as the runtime reports it; 0 when it does not. */
    sizeBytes: number;
  };
}

export interface ImageService {
  /**
   * Ensures the image is present according to the pull policy; throws ImagePullError.
   * `credentials`: the pod's image pull secrets matched to the image, tried in turn before the
   * node's credential providers (the reference's union keyring). `onPulling` is called once,
   * when the policy has found that a pull is needed and before it waits for a pull slot.
   */
  ensureImage(
    image: string,
    policy: 'Always' | 'IfNotPresent' | 'Never',
    credentials?: readonly RegistryCredential[],
    onPulling?: () => void,
  ): Promise<EnsuredImage>;
  listImages(): Promise<ImageInfo[]>;
  removeImage(id: string): Promise<void>;
  /** Capacity and use of the file system holding images (image GC, the imagefs eviction signals);
   * undefined when images live on the node's own file system. */
  imageFsInfo(): Promise<ImageFsInfo | undefined>;
}

/** Why a container could not start because of its image. */
/** dockerode's message around the engine's: "(HTTP code 500) server error - <the engine's> ". */
const DOCKER_WRAP = /^\(HTTP code \d+\) [^-]*- ([\s\S]*)$/;

/**
 * What a runtime's failure says on a pod (its status and events): the runtime's own words when the
 * error carries them (`runtimeWords`: a CRI call's status message, as the reference shows it,
 * without the call and socket the agent's log names; the Docker engine's message, without the
 * HTTP status the API client wraps it in), else the error's message.
 */
export function runtimeWords(err: unknown): string {
  const e = err as
    | { runtimeWords?: unknown; statusCode?: unknown; json?: { message?: unknown } | null }
    | null
    | undefined;
  if (typeof e?.runtimeWords === 'string') return e.runtimeWords;
  if (typeof e?.json?.message === 'string') return e.json.message;
  const text = userMessage(err);
  const engine = typeof e?.statusCode === 'number' ? DOCKER_WRAP.exec(text) : null;
  return engine?.[1] !== undefined ? engine[1].trim() : text;
}

export class ImagePullError extends Error {
  readonly reason: 'ErrImagePull' | 'ErrImageNeverPull' | 'InvalidImageName' | 'ImagePullBackOff';
  /** The failed pull's own words (runtimeWords of the cause), for the pod. */
  readonly runtimeWords: string;
  constructor(reason: ImagePullError['reason'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
    this.name = 'ImagePullError';
    this.runtimeWords = options?.cause === undefined ? message : runtimeWords(options.cause);
  }
}

/**
 * The container's configuration cannot be made (runAsNonRoot against the image's user, a
 * malformed profile): the reference's CreateContainerConfigError, with this message.
 */
export class ContainerConfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ContainerConfigError';
  }
}

export function defaultPullPolicy(image: string | undefined): 'Always' | 'IfNotPresent' {
  if (image === undefined) return 'IfNotPresent';
  const lastPart = image.split('/').pop() ?? image;
  const tag = lastPart.includes('@')
    ? 'digest'
    : lastPart.includes(':')
      ? lastPart.split(':').pop()
      : 'latest';
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

/** Labels (docker) and state-file fields (process) identifying what a container belongs to. */
export const LABELS = {
  managed: 'io.nodeagent.managed',
  podUid: 'io.nodeagent.pod.uid',
  podName: 'io.nodeagent.pod.name',
  podNamespace: 'io.nodeagent.pod.namespace',
  containerName: 'io.nodeagent.container.name',
  kind: 'io.nodeagent.container.kind',
  attempt: 'io.nodeagent.container.attempt',
  specHash: 'io.nodeagent.container.hash',
  grace: 'io.nodeagent.pod.terminationGracePeriod',
  sandboxId: 'io.nodeagent.sandbox.id',
  /** The host file of the container's terminationMessagePath. */
  terminationMessageFile: 'io.nodeagent.container.terminationMessageFile',
  /** The node (agent) that owns the container: agents sharing an engine leave each other alone. */
  node: 'io.nodeagent.node',
} as const;
