// The agent's ContainerRuntime and ImageService over CRI (runtime.v1): containerd, CRI-O or any
// runtime that keeps to the CRI contract (nothing here is one runtime's own API). Sandboxes and
// containers carry the reference's labels and the agent's; only this node's are listed. The
// containerID scheme is the runtime's name as Version gives it (containerd://, cri-o://).
import type { Duplex } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import type { Clock } from '../../../common/util/clock.js';
import type { Logger } from '../../../common/log/types.js';
import { RuntimeError } from '../../../common/util/errors.js';
import { checkWritableUnder } from '../../../common/util/safe-path.js';
import type { ImageCredentialSource } from '../credentials/keyring.js';
import { readResolvConf, type DnsConfig } from '../settings/resolv-conf.js';
import type { PodRuntimeSettings } from '../settings/container-settings.js';
import type {
  AttachOptions,
  ContainerConfig,
  ContainerEventListener,
  ContainerRuntime,
  ContainerStats,
  ExecResult,
  ExecSession,
  ImageFsInfo,
  ImageInfo,
  ImageService,
  RuntimeContainer,
  RuntimeStatsSnapshot,
  RuntimeVersion,
  RegistryCredential,
  EnsuredImage,
  SandboxConfig,
  TimedLogLine,
} from '../types.js';
import { ContainerConfigError } from '../types.js';
import { runAsNonRootViolation, type ImageUser } from '../security/run-as-non-root.js';
import { CriCallError, CriClient } from './client.js';
import type { CriEndpoint } from './endpoint.js';
import { CriImages } from './images.js';
import { containerConfig } from './container-config.js';
import { sandboxConfig } from './sandbox-config.js';
import {
  DEFAULT_CLUSTER_DOMAIN,
  mountsHostsFile,
  writePodHostsFile,
} from '../settings/pod-hosts.js';
import { CriState } from './state.js';
import { CriLogs, removeLogFiles } from './logs.js';
import { channelSession, portForwardConnection } from './stream-client.js';
import { CriEvents } from './events.js';
import { statsOf } from './stats.js';
import { CriStatsLister } from './stats-list.js';
import { START_STAGE, StartGate, defaultStartLimit } from './start-gate.js';

export interface CriRuntimeOptions {
  runtime: CriEndpoint;
  image: CriEndpoint;
  /** The runtime's name until Version tells it (from the socket's name). */
  guessedName: string;
  /** The agent's --root-dir: each pod's managed hosts file goes under it. */
  rootDir: string;
  requestTimeoutMs: number;
  serializeImagePulls: boolean;
  maxParallelImagePulls?: number;
  registryPullQPS: number;
  registryBurst: number;
  /** The reference's podLogsDir: the sandboxes' log directories go under it. */
  podLogsDir: string;
  nodeName?: string;
  podSettings?: PodRuntimeSettings;
  credentials?: ImageCredentialSource;
  logger: Logger;
  clock: Clock;
  /** How often containers are listed for exits and starts (the reference's PLEG relist: 1 s). */
  relistMs?: number;
  /** Pod-start calls in flight at once (start-gate.ts); default defaultStartLimit(), 0: none. */
  startLimit?: number;
}

/** The sandbox's runtime version this agent expects. */
export const CRI_API_VERSION = 'v1';

const isNotFound = (err: unknown): boolean =>
  err instanceof CriCallError && err.grpcCode === grpc.status.NOT_FOUND;

export class CriRuntime implements ContainerRuntime, ImageService {
  private name: string;
  private readonly client: CriClient;
  private readonly images: CriImages;
  private readonly state: CriState;
  private readonly logReader: CriLogs;
  private readonly events: CriEvents;
  private readonly statsLister: CriStatsLister;
  private readonly starts: StartGate;

  constructor(private readonly o: CriRuntimeOptions) {
    this.name = o.guessedName;
    this.starts = new StartGate(o.startLimit ?? defaultStartLimit());
    this.client = new CriClient({
      runtime: o.runtime,
      image: o.image,
      timeoutMs: o.requestTimeoutMs,
      clock: o.clock,
      logger: o.logger.child({ component: 'cri' }),
    });
    this.images = new CriImages({ ...o, client: this.client });
    this.state = new CriState({
      client: this.client,
      ...(o.nodeName !== undefined ? { nodeName: o.nodeName } : {}),
      logger: o.logger,
    });
    this.logReader = new CriLogs(this.client);
    this.statsLister = new CriStatsLister({ client: this.client, logger: o.logger });
    this.events = new CriEvents({
      list: () => this.listContainers(),
      clock: o.clock,
      intervalMs: o.relistMs ?? 1000,
    });
  }

  /** The runtime's name, the containerID scheme: Version's runtime_name once it answered. */
  get type(): string {
    return this.name;
  }

  async version(): Promise<RuntimeVersion> {
    let v;
    try {
      v = await this.client.call('RuntimeService/Version', { version: CRI_API_VERSION });
    } catch (err) {
      if (err instanceof CriCallError && err.grpcCode === grpc.status.UNIMPLEMENTED)
        throw new RuntimeError(
          `the endpoint ${this.o.runtime.target} speaks no CRI runtime.v1 ` +
            `(RuntimeService/Version is not implemented there): is it a CRI runtime's ` +
            `socket?`,
          { cause: err },
        );
      throw err;
    }
    if (v.runtime_api_version !== CRI_API_VERSION)
      throw new RuntimeError(
        `the runtime at ${this.o.runtime.target} speaks CRI ` +
          `${JSON.stringify(v.runtime_api_version ?? '')}, not runtime.v1`,
      );
    const runtimeName = (v.runtime_name ?? '').slice(0, 64);
    if (/^[a-z0-9][-a-z0-9._]*$/.test(runtimeName)) this.name = runtimeName;
    return {
      runtimeName: this.name,
      runtimeVersion: (v.runtime_version ?? '').slice(0, 256),
      runtimeApiVersion: CRI_API_VERSION,
    };
  }

  /** The pod's DNS as the runtime writes it in resolv.conf (the agent's pod DNS rules). */
  private async dnsOf(cfg: SandboxConfig): Promise<DnsConfig | undefined> {
    const dns = this.o.podSettings?.dns;
    if (dns === undefined) return undefined;
    return readResolvConf(await dns.write(cfg.pod));
  }

  private sandboxConfigOf(cfg: SandboxConfig, dns?: DnsConfig) {
    const parent = this.o.podSettings?.cgroups?.dockerParent(cfg.pod);
    return sandboxConfig({
      pod: cfg.pod,
      attempt: cfg.attempt,
      podLogsDir: this.o.podLogsDir,
      ...(this.o.nodeName !== undefined ? { nodeName: this.o.nodeName } : {}),
      ...(parent !== undefined && parent !== '' ? { cgroupParent: parent } : {}),
      ...(dns !== undefined ? { dns } : {}),
    });
  }

  async runPodSandbox(cfg: SandboxConfig): Promise<string> {
    const config = this.sandboxConfigOf(cfg, await this.dnsOf(cfg));
    const handler = cfg.runtimeHandler ?? '';
    const r = await this.starts.run(START_STAGE.sandbox, () =>
      this.client.call('RuntimeService/RunPodSandbox', {
        config,
        ...(handler !== '' ? { runtime_handler: handler } : {}),
      }),
    );
    if (r.pod_sandbox_id === undefined || r.pod_sandbox_id === '')
      throw new RuntimeError(
        `RunPodSandbox of pod ${cfg.pod.metadata.name} answered no sandbox id`,
      );
    return r.pod_sandbox_id;
  }

  async stopPodSandbox(id: string, _graceSeconds: number): Promise<void> {
    await this.client
      .call('RuntimeService/StopPodSandbox', { pod_sandbox_id: id })
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  }

  async removePodSandbox(id: string): Promise<void> {
    await this.client.call('RuntimeService/RemovePodSandbox', { pod_sandbox_id: id });
    this.state.forget(id);
  }

  /** Who the image runs as (ImageStatus), as the reference's getImageUser reads it. */
  private async imageUser(image: string): Promise<ImageUser> {
    const r = await this.client.call('ImageService/ImageStatus', { image: { image } });
    // an Int64Value of 0 comes as an empty message
    const uid = r.image?.uid;
    if (uid !== undefined) return { uid: uid.value ?? 0 };
    const name = r.image?.username;
    return name !== undefined && name !== '' ? { username: name } : {};
  }

  async createContainer(cfg: ContainerConfig): Promise<string> {
    const imageUser = await this.imageUser(cfg.container.image ?? '');
    const violation = runAsNonRootViolation(cfg.pod, cfg.container, imageUser);
    if (violation !== undefined) throw new ContainerConfigError(violation);
    const hostsPath = await this.hostsFile(cfg);
    const config = containerConfig({
      ...cfg,
      imageUser,
      ...(hostsPath !== undefined ? { hostsPath } : {}),
      ...(this.o.nodeName !== undefined ? { nodeName: this.o.nodeName } : {}),
      ...(this.o.podSettings !== undefined ? { settings: this.o.podSettings.container } : {}),
    });
    const sandbox_config = this.sandboxConfigOf({ pod: cfg.pod, attempt: 0 });
    const r = await this.starts.run(START_STAGE.create, () =>
      this.client.call('RuntimeService/CreateContainer', {
        pod_sandbox_id: cfg.sandboxId,
        config,
        sandbox_config,
      }),
    );
    if (r.container_id === undefined || r.container_id === '')
      throw new RuntimeError(`CreateContainer of ${cfg.container.name} answered no container id`);
    return r.container_id;
  }

  /**
   * The pod's /etc/hosts, written afresh with the sandbox's addresses, as the reference's kubelet
   * makes it for a CRI runtime: none when a mount covers the path, or when the sandbox has no
   * address and the pod has its own network.
   */
  private async hostsFile(cfg: ContainerConfig): Promise<string | undefined> {
    if (!mountsHostsFile(cfg.container)) return undefined;
    const hostNetwork = cfg.pod.spec.hostNetwork === true;
    const podIPs = hostNetwork ? [] : await this.state.sandboxIPs(cfg.sandboxId);
    if (podIPs.length === 0 && !hostNetwork) return undefined;
    return writePodHostsFile({
      rootDir: this.o.rootDir,
      pod: cfg.pod,
      podIPs,
      clusterDomain: this.o.podSettings?.dns?.clusterDomain ?? DEFAULT_CLUSTER_DOMAIN,
    });
  }

  async startContainer(id: string): Promise<void> {
    await this.starts.run(START_STAGE.start, () =>
      this.client.call('RuntimeService/StartContainer', { container_id: id }),
    );
  }

  async stopContainer(id: string, graceSeconds: number): Promise<void> {
    const timeout = Math.max(0, Math.floor(graceSeconds));
    await this.client
      .call(
        'RuntimeService/StopContainer',
        { container_id: id, timeout },
        { extraMs: timeout * 1000 },
      )
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
  }

  async removeContainer(id: string): Promise<void> {
    // the container's log and its rotated files go with it, as the reference's log manager
    // cleans; only a log under podLogsDir (the runtime names the path)
    const log = await this.logReader
      .pathOf(id)
      .then((p) => checkWritableUnder(this.o.podLogsDir, p))
      .catch(() => undefined);
    await this.client
      .call('RuntimeService/RemoveContainer', { container_id: id })
      .catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    this.state.forget(id);
    this.logReader.forget(id);
    if (log !== undefined) await removeLogFiles(log);
  }

  listContainers(filter?: { podUid?: string }): Promise<RuntimeContainer[]> {
    return this.state.list(filter?.podUid);
  }

  logPath(id: string): string | undefined {
    return this.state.logPathOf(id);
  }

  async reopenContainerLog(id: string): Promise<void> {
    await this.client.call('RuntimeService/ReopenContainerLog', { container_id: id });
  }

  async logs(id: string, opts?: { tailLines?: number }): Promise<string> {
    const lines = await this.logReader.lines(id, opts?.tailLines);
    return lines.map((l) => l.text).join('');
  }

  timedLogs(id: string, opts?: { tailLines?: number; sinceMs?: number }): Promise<TimedLogLine[]> {
    return this.logReader.lines(id, opts?.tailLines, opts?.sinceMs);
  }

  async exec(id: string, command: readonly string[], timeoutMs: number): Promise<ExecResult> {
    const timeout = Math.max(1, Math.ceil(timeoutMs / 1000));
    try {
      const r = await this.client.call(
        'RuntimeService/ExecSync',
        { container_id: id, cmd: [...command], timeout },
        { extraMs: timeout * 1000 },
      );
      const out = Buffer.concat([Buffer.from(r.stdout ?? []), Buffer.from(r.stderr ?? [])]);
      return { exitCode: r.exit_code ?? 0, output: out.toString('utf8') };
    } catch (err) {
      if (err instanceof CriCallError && err.grpcCode === grpc.status.DEADLINE_EXCEEDED)
        return { exitCode: 124, output: `timed out after ${timeoutMs} ms` };
      throw err;
    }
  }

  async execStream(
    id: string,
    command: readonly string[],
    opts: { tty: boolean },
  ): Promise<ExecSession> {
    const r = await this.client.call('RuntimeService/Exec', {
      container_id: id,
      cmd: [...command],
      tty: opts.tty,
      stdin: true,
      stdout: true,
      stderr: !opts.tty,
    });
    return channelSession(this.streamUrl(r.url), { stdin: true });
  }

  async attachStream(id: string, opts: AttachOptions): Promise<ExecSession> {
    const r = await this.client.call('RuntimeService/Attach', {
      container_id: id,
      stdin: opts.stdin,
      tty: opts.tty,
      stdout: opts.stdout,
      stderr: opts.stderr && !opts.tty,
    });
    return channelSession(this.streamUrl(r.url), { stdin: opts.stdin });
  }

  async connectPort(podUid: string, port: number): Promise<Duplex> {
    const sandbox = (await this.listContainers({ podUid })).find(
      (c) => c.kind === 'sandbox' && c.state === 'running',
    );
    if (sandbox === undefined) throw new RuntimeError(`pod ${podUid} has no running sandbox`);
    const r = await this.client.call('RuntimeService/PortForward', {
      pod_sandbox_id: sandbox.id,
      port: [port],
    });
    return portForwardConnection(this.streamUrl(r.url), port);
  }

  /** The runtime's stream URL: http(s) only, at most 8 KiB. */
  private streamUrl(url: string | undefined): string {
    if (url === undefined || url.length > 8192 || !/^https?:\/\/[^\s]+$/.test(url))
      throw new RuntimeError(
        `the runtime answered no usable stream URL (${JSON.stringify((url ?? '').slice(0, 200))})`,
      );
    return url;
  }

  async stats(id: string): Promise<ContainerStats | undefined> {
    const r = await this.client
      .call('RuntimeService/ContainerStats', { container_id: id })
      .catch(() => undefined);
    return r?.stats === undefined ? undefined : statsOf(r.stats);
  }

  listStats(): Promise<RuntimeStatsSnapshot> {
    return this.statsLister.list();
  }

  updatePodCIDR(podCIDR: string): void {
    void this.client
      .call('RuntimeService/UpdateRuntimeConfig', {
        runtime_config: { network_config: { pod_cidr: podCIDR } },
      })
      .catch((err: unknown) =>
        this.o.logger.warn({ podCIDR, err: String(err) }, 'the runtime did not take the pod CIDR'),
      );
  }

  onEvent(listener: ContainerEventListener): void {
    this.events.add(listener);
  }

  async close(): Promise<void> {
    await this.events.stop();
    this.client.close();
  }

  ensureImage(
    image: string,
    policy: 'Always' | 'IfNotPresent' | 'Never',
    credentials?: readonly RegistryCredential[],
    onPulling?: () => void,
  ): Promise<EnsuredImage> {
    return this.images.ensureImage(image, policy, credentials, onPulling);
  }

  listImages(): Promise<ImageInfo[]> {
    return this.images.listImages();
  }

  removeImage(id: string): Promise<void> {
    return this.images.removeImage(id);
  }

  imageFsInfo(): Promise<ImageFsInfo | undefined> {
    return this.images.imageFsInfo();
  }
}
