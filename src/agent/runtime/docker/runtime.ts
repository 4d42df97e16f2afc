// The Docker runtime: a pod is a sandbox container (holding the network namespace, publishing
// host ports on 127.0.0.1) plus app containers joining it. Labels carry pod and container
// identity, so a restarted agent rebuilds everything from the engine and leaves healthy
// containers running. Engine API version 1.41 at most; HostConfig.Init=true everywhere.
import Docker from 'dockerode';
import { afterMs, type Clock } from '../../../common/util/clock.js';
import { BackoffSequence } from '../../../common/util/backoff.js';
import type { Logger } from '../../../common/log/types.js';
import { RuntimeError, userMessage } from '../../../common/util/errors.js';
import { type RateLimiter } from '../../client/rate-limiter.js';
import { TokenBucket } from '../../../common/util/token-bucket.js';
import { parseQuantity } from '../../../common/util/values/quantity.js';
import {
  LABELS,
  type AttachOptions,
  type ContainerConfig,
  type ContainerEventListener,
  type ContainerRuntime,
  type ContainerStats,
  type EnsuredImage,
  type ExecResult,
  type ExecSession,
  type ImageFsInfo,
  type ImageInfo,
  type ImageService,
  type RuntimeContainer,
  type RuntimeVersion,
  type SandboxConfig,
  type TimedLogLine,
} from '../types.js';
import {
  defaultContainerSettings,
  type PodRuntimeSettings,
} from '../settings/container-settings.js';
import { prepareDockerSecurity } from '../security/docker-security.js';
import { checkRuntimeHandler, DOCKER_HANDLERS } from '../runtime-handler.js';
import { containerCreateOptions, demuxDockerStream, sandboxCreateOptions } from './convert.js';
import { PullQueue } from './pull-queue.js';
import { withCgroupParent } from '../settings/cgroup-parent.js';
import { linesSince } from '../log-lines.js';
import { parseTimedLog } from './timed-logs.js';
import { containerEventOf } from './events.js';
import type { ImageCredentialSource, RegistryAuth } from '../credentials/keyring.js';
import { ensureImageWith } from '../ensure-image.js';
import {
  kernelHostname,
  DEFAULT_CLUSTER_DOMAIN,
  mountsHostsFile,
  podHostnameAndDomain,
  writePodHostsFile,
} from '../settings/pod-hosts.js';
import { dockerAttachStream, dockerConnectPort, dockerExecStream } from './streams.js';
import type { Duplex } from 'node:stream';

export const DOCKER_API_VERSION = 'v1.41';

export interface DockerRuntimeOptions {
  endpoint: string;
  imageEndpoint?: string;
  requestTimeoutMs: number;
  serializeImagePulls: boolean;
  /** maxParallelImagePulls: with serializeImagePulls false, the most pulls at once. */
  maxParallelImagePulls?: number;
  registryPullQPS: number;
  registryBurst: number;
  rootDir: string;
  logger: Logger;
  clock: Clock;
  /** Image of the sandbox container. Default busybox:local (no registry is needed). */
  sandboxImage?: string;
  containerLogMaxSize?: string;
  containerLogMaxFiles?: number;
  /** Labels containers with the node and sees only that node's containers. */
  nodeName?: string;
  /** Resources, pids, oom_score_adj, seccomp and DNS from the agent's flags. */
  podSettings?: PodRuntimeSettings;
  /** Registry credentials for pulls (the credential provider plugins). */
  credentials?: ImageCredentialSource;
  /** --hairpin-mode hairpin-veth: told each started sandbox on the bridge network (hairpin.ts). */
  hairpin?: { sandboxStarted(podName: string, pid: number): Promise<void> };
}

export function dockerFromEndpoint(endpoint: string, timeoutMs?: number): Docker {
  const base = {
    version: DOCKER_API_VERSION,
    ...(timeoutMs !== undefined && timeoutMs > 0 ? { timeout: timeoutMs } : {}),
  };
  if (endpoint.startsWith('unix://'))
    return new Docker({ ...base, socketPath: endpoint.slice('unix://'.length) });
  if (endpoint.startsWith('tcp://')) {
    const u = new URL(endpoint.replace(/^tcp:/, 'http:'));
    return new Docker({
      ...base,
      host: u.hostname,
      port: Number(u.port || 2375),
      protocol: 'http',
    });
  }
  throw new RuntimeError(
    `unsupported Docker endpoint ${endpoint}: use unix:///path or tcp://host:port`,
  );
}

function statusCode(err: unknown): number | undefined {
  if (err === null || typeof err !== 'object' || !('statusCode' in err)) return undefined;
  return typeof err.statusCode === 'number' ? err.statusCode : undefined;
}

function parseTime(s: string | undefined): number | undefined {
  if (s === undefined || s.startsWith('0001-')) return undefined;
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : undefined;
}

/** Times, exit code, reason and the engine's error of a container, from its inspection. */
function addInspectDetails(base: RuntimeContainer, info: Docker.ContainerInspectInfo): void {
  const started = parseTime(info.State.StartedAt);
  const finished = parseTime(info.State.FinishedAt);
  if (started !== undefined) base.startedAtMs = started;
  if (finished !== undefined && base.state === 'exited') base.finishedAtMs = finished;
  const created = parseTime(info.Created);
  if (created !== undefined) base.createdAtMs = created;
  if (base.state !== 'exited') return;
  base.exitCode = info.State.ExitCode;
  base.reason = info.State.OOMKilled
    ? 'OOMKilled'
    : info.State.ExitCode === 0
      ? 'Completed'
      : 'Error';
  if (started === undefined) {
    // it never ran: the engine says why (a missing executable, a bad mount)
    base.reason = 'ContainerCannotRun';
    if (info.State.Error !== '') base.message = info.State.Error;
  }
}

export class DockerRuntime implements ContainerRuntime, ImageService {
  readonly type = 'docker' as const;
  readonly docker: Docker;
  private readonly imageDocker: Docker;
  private readonly opts: DockerRuntimeOptions;
  private readonly listeners: ContainerEventListener[] = [];
  private readonly limiter: RateLimiter | undefined;
  private readonly pulls: PullQueue;
  private readonly events = new AbortController();
  private eventsLoop: Promise<void> | undefined;
  private readonly logOpts: Record<string, string>;
  private sandboxImageReady = false;

  constructor(opts: DockerRuntimeOptions) {
    this.opts = opts;
    this.docker = dockerFromEndpoint(opts.endpoint, opts.requestTimeoutMs);
    // pulls are exempt from the request timeout
    this.imageDocker = dockerFromEndpoint(opts.imageEndpoint ?? opts.endpoint);
    this.pulls = new PullQueue({
      serialize: opts.serializeImagePulls,
      ...(opts.maxParallelImagePulls !== undefined
        ? { maxParallel: opts.maxParallelImagePulls }
        : {}),
    });
    this.limiter =
      opts.registryPullQPS > 0
        ? new TokenBucket({
            qps: opts.registryPullQPS,
            burst: Math.max(1, opts.registryBurst),
            clock: opts.clock,
          })
        : undefined;
    const maxSize = opts.containerLogMaxSize ?? '10Mi';
    this.logOpts = {
      'max-size': String(Math.max(1024, Math.round(parseQuantity(maxSize).value))),
      'max-file': String(Math.max(2, opts.containerLogMaxFiles ?? 5)),
    };
  }

  private ownLabels(): string[] {
    const l = [`${LABELS.managed}=true`];
    if (this.opts.nodeName !== undefined) l.push(`${LABELS.node}=${this.opts.nodeName}`);
    return l;
  }

  private wrap(what: string, err: unknown): RuntimeError {
    return new RuntimeError(`docker: ${what}: ${userMessage(err)}`, { cause: err });
  }

  async version(): Promise<RuntimeVersion> {
    try {
      const v = await this.docker.version();
      this.eventsLoop ??= this.watchEvents();
      return { runtimeName: 'docker', runtimeVersion: v.Version, runtimeApiVersion: v.ApiVersion };
    } catch (err) {
      throw this.wrap(`engine at ${this.opts.endpoint} is not answering`, err);
    }
  }

  /** Follows the engine's container events; reconnects with back-off when the engine restarts. */
  private async watchEvents(): Promise<void> {
    const signal = this.events.signal;
    const backoff = new BackoffSequence({
      clock: this.opts.clock,
      policy: { initialMs: 500, maxMs: 10_000 },
    });
    while (!signal.aborted) {
      try {
        const stream = await this.docker.getEvents({
          filters: JSON.stringify({
            type: ['container'],
            event: ['die', 'start'],
            label: this.ownLabels(),
          }),
          abortSignal: signal,
        } as unknown as Docker.GetEventsOptions);
        backoff.reset();
        let buf = '';
        for await (const chunk of stream) {
          buf += chunk.toString();
          let nl;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (line.trim() === '') continue;
            const event = containerEventOf(line);
            if (event === undefined) continue;
            try {
              for (const l of this.listeners) l(event);
            } catch {
              // a listener's failure does not end the stream (as before: the line was skipped)
            }
          }
        }
      } catch (err) {
        // The signal may abort while the stream is read above.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (signal.aborted) return;
        this.opts.logger.warn(
          { err: userMessage(err), retryInMs: backoff.peekMs() },
          'docker: event stream lost; reconnecting',
        );
      }
      try {
        await backoff.sleep(signal);
      } catch {
        return;
      }
    }
  }

  /**
   * Standalone --pod-cidr: the reference's Docker integration hands the CIDR to kubenet only; pods
   * on Docker's bridge network get their addresses from Docker's subnet, which is said once.
   */
  updatePodCIDR(podCIDR: string): void {
    const reason =
      "the pods use Docker's bridge network, whose subnet Docker assigns (the " +
      "reference's Docker integration gives the pod CIDR to kubenet only)";
    this.opts.logger.warn(
      { option: '--pod-cidr', podCIDR, reason, effect: 'pod IPs come from the Docker bridge' },
      `--pod-cidr cannot take effect on this host: ${reason}; pod IPs come from the Docker bridge`,
    );
  }

  async runPodSandbox(cfg: SandboxConfig): Promise<string> {
    checkRuntimeHandler(cfg.runtimeHandler, DOCKER_HANDLERS);
    const image = this.opts.sandboxImage ?? 'busybox:local';
    if (!this.sandboxImageReady) {
      await this.ensureImage(image, 'IfNotPresent');
      this.sandboxImageReady = true;
    }
    try {
      await this.opts.podSettings?.dns?.write(cfg.pod);
      const { hostname, domain } = podHostnameAndDomain(cfg.pod, this.clusterDomain());
      const c = await this.docker.createContainer(
        withCgroupParent(
          sandboxCreateOptions(
            cfg.pod,
            cfg.attempt,
            image,
            this.logOpts,
            this.opts.nodeName,
            kernelHostname(hostname, domain, cfg.pod.spec.setHostnameAsFQDN === true),
          ),
          cfg.pod,
          this.opts.podSettings,
        ),
      );
      await c.start();
      if (this.opts.hairpin !== undefined && cfg.pod.spec.hostNetwork !== true)
        await this.opts.hairpin.sandboxStarted(
          cfg.pod.metadata.name,
          (await c.inspect()).State.Pid,
        );
      return c.id;
    } catch (err) {
      throw this.wrap(`could not start the sandbox of pod ${cfg.pod.metadata.name}`, err);
    }
  }

  async stopPodSandbox(id: string, graceSeconds: number): Promise<void> {
    await this.stopContainer(id, Math.min(graceSeconds, 10));
  }

  async removePodSandbox(id: string): Promise<void> {
    await this.removeContainer(id);
  }

  private clusterDomain(): string {
    return this.opts.podSettings?.dns?.clusterDomain ?? DEFAULT_CLUSTER_DOMAIN;
  }

  /**
   * The pod's /etc/hosts, written afresh with the sandbox's IP (none when a mount covers the path).
   */
  private async hostsFile(cfg: ContainerConfig): Promise<string | undefined> {
    if (!mountsHostsFile(cfg.container)) return undefined;
    const sandbox = await this.docker.getContainer(cfg.sandboxId).inspect();
    const ip = Object.values(sandbox.NetworkSettings.Networks)
      .map((n) => n.IPAddress)
      .find((x) => x !== '');
    if (ip === undefined && cfg.pod.spec.hostNetwork !== true) return undefined;
    return writePodHostsFile({
      rootDir: this.opts.rootDir,
      pod: cfg.pod,
      podIPs: ip === undefined ? [] : [ip],
      clusterDomain: this.clusterDomain(),
    });
  }

  /** The image's USER (Config.User), for runAsNonRoot and a runAsGroup without runAsUser. */
  private async imageUser(image: string): Promise<string | undefined> {
    const info = await this.docker.getImage(image).inspect();
    return info.Config.User;
  }

  async createContainer(cfg: ContainerConfig): Promise<string> {
    const settings = this.opts.podSettings?.container ?? defaultContainerSettings();
    const security = await prepareDockerSecurity(cfg.pod, cfg.container, settings, () =>
      this.imageUser(cfg.container.image ?? '').catch((err: unknown) => {
        throw this.wrap(`could not inspect image ${cfg.container.image ?? ''}`, err);
      }),
    );
    try {
      const hostsPath = await this.hostsFile(cfg);
      const c = await this.docker.createContainer(
        withCgroupParent(
          containerCreateOptions({
            ...cfg,
            logOpts: this.logOpts,
            security,
            ...(this.opts.nodeName !== undefined ? { nodeName: this.opts.nodeName } : {}),
            ...(this.opts.podSettings !== undefined
              ? { settings: this.opts.podSettings.container }
              : {}),
            ...(this.opts.podSettings?.dns !== undefined
              ? { resolvConfPath: this.opts.podSettings.dns.pathOf(cfg.pod) }
              : {}),
            ...(hostsPath !== undefined ? { hostsPath } : {}),
          }),
          cfg.pod,
          this.opts.podSettings,
        ),
      );
      return c.id;
    } catch (err) {
      throw this.wrap(`could not create container ${cfg.container.name}`, err);
    }
  }

  /** The CPU manager's reconcile: moves a running container to another cpuset (Docker update). */
  async updateCpuset(id: string, cpus: string): Promise<void> {
    try {
      await this.docker.getContainer(id).update({ CpusetCpus: cpus });
    } catch (err) {
      throw this.wrap(`could not update the cpuset of container ${id.slice(0, 12)}`, err);
    }
  }

  async startContainer(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).start();
    } catch (err) {
      if (statusCode(err) === 304) return;
      throw this.wrap(`could not start container ${id.slice(0, 12)}`, err);
    }
  }

  async stopContainer(id: string, graceSeconds: number): Promise<void> {
    try {
      await this.docker.getContainer(id).stop({ t: Math.max(0, Math.round(graceSeconds)) });
    } catch (err) {
      const s = statusCode(err);
      if (s === 304 || s === 404) return;
      throw this.wrap(`could not stop container ${id.slice(0, 12)}`, err);
    }
  }

  async removeContainer(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true });
    } catch (err) {
      const s = statusCode(err);
      if (s === 404) return;
      if (s === 409) return; // removal already in progress
      throw this.wrap(`could not remove container ${id.slice(0, 12)}`, err);
    }
  }

  async listContainers(filter?: { podUid?: string }): Promise<RuntimeContainer[]> {
    const labels = this.ownLabels();
    if (filter?.podUid !== undefined) labels.push(`${LABELS.podUid}=${filter.podUid}`);
    let list: Docker.ContainerInfo[];
    try {
      list = await this.docker.listContainers({
        all: true,
        filters: JSON.stringify({ label: labels }),
      });
    } catch (err) {
      throw this.wrap('could not list containers', err);
    }
    const detailed = filter?.podUid !== undefined;
    const out = await Promise.all(list.map((c) => this.toRuntimeContainer(c, detailed)));
    return out.filter((c): c is RuntimeContainer => c !== undefined);
  }

  private async toRuntimeContainer(
    c: Docker.ContainerInfo,
    detailed: boolean,
  ): Promise<RuntimeContainer | undefined> {
    const l = c.Labels;
    const kind = l[LABELS.kind];
    if (kind !== 'sandbox' && kind !== 'init' && kind !== 'app' && kind !== 'ephemeral')
      return undefined;
    const state =
      c.State === 'running'
        ? 'running'
        : c.State === 'created'
          ? 'created'
          : c.State === 'exited' || c.State === 'dead'
            ? 'exited'
            : c.State === 'paused' || c.State === 'restarting'
              ? 'running'
              : 'unknown';
    const base: RuntimeContainer = {
      id: c.Id,
      podUid: l[LABELS.podUid] ?? '',
      podName: l[LABELS.podName] ?? '',
      podNamespace: l[LABELS.podNamespace] ?? '',
      name: l[LABELS.containerName] ?? '',
      kind,
      attempt: Number(l[LABELS.attempt] ?? 0),
      specHash: l[LABELS.specHash] ?? '',
      image: c.Image,
      imageId: c.ImageID,
      state,
      createdAtMs: c.Created * 1000,
      ...(l[LABELS.sandboxId] !== undefined ? { sandboxId: l[LABELS.sandboxId] } : {}),
      ...(l[LABELS.terminationMessageFile] !== undefined
        ? { terminationMessageFile: l[LABELS.terminationMessageFile] }
        : {}),
    };
    const m = /Exited \((-?\d+)\)/.exec(c.Status);
    if (m?.[1] !== undefined) base.exitCode = Number(m[1]);
    if (kind === 'sandbox') {
      // The engine's JSON is not checked against dockerode's types, which call these required.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      const nets = c.NetworkSettings?.Networks ?? {};
      const ip = Object.values(nets)
        .map((n) => n.IPAddress)
        .find((x) => x !== '');
      if (ip) base.ip = ip;
    }
    if (!detailed || kind === 'sandbox') return base;
    try {
      addInspectDetails(base, await this.docker.getContainer(c.Id).inspect());
    } catch (err) {
      if (statusCode(err) === 404) return undefined;
      throw this.wrap(`could not inspect container ${c.Id.slice(0, 12)}`, err);
    }
    return base;
  }

  /** The engine's json-file log of the container (empty with another log driver). */
  async hostLogFile(id: string): Promise<string | undefined> {
    const path = (await this.docker.getContainer(id).inspect()).LogPath;
    return path === '' ? undefined : path;
  }

  async logs(id: string, opts?: { tailLines?: number }): Promise<string> {
    try {
      // unknown: docker-modem hands back a Buffer, or a parsed value for a JSON content type
      const buf: unknown = await this.docker.getContainer(id).logs({
        stdout: true,
        stderr: true,
        follow: false,
        ...(opts?.tailLines !== undefined ? { tail: opts.tailLines } : {}),
      });
      return demuxDockerStream(Buffer.isBuffer(buf) ? buf : Buffer.from(String(buf)));
    } catch (err) {
      throw this.wrap(`could not read logs of ${id.slice(0, 12)}`, err);
    }
  }

  /**
   * The log with the engine's time for each line: the tail first, then since (as the reference's
   * ReadLogs).
   */
  async timedLogs(
    id: string,
    opts?: { tailLines?: number; sinceMs?: number },
  ): Promise<TimedLogLine[]> {
    try {
      // unknown: docker-modem hands back a Buffer, or a parsed value for a JSON content type
      const buf: unknown = await this.docker.getContainer(id).logs({
        stdout: true,
        stderr: true,
        follow: false,
        timestamps: true,
        ...(opts?.tailLines !== undefined ? { tail: opts.tailLines } : {}),
      });
      return linesSince(
        parseTimedLog(demuxDockerStream(Buffer.isBuffer(buf) ? buf : Buffer.from(String(buf)))),
        opts?.sinceMs,
      );
    } catch (err) {
      throw this.wrap(`could not read logs of ${id.slice(0, 12)}`, err);
    }
  }

  /** An interactive exec (hijacked; Tty and resize through the engine). */
  execStream(id: string, command: readonly string[], opts: { tty: boolean }): Promise<ExecSession> {
    return dockerExecStream(this.docker, id, command, opts);
  }

  attachStream(id: string, opts: AttachOptions): Promise<ExecSession> {
    return dockerAttachStream(this.docker, id, opts);
  }

  /**
   * Through the pod's sandbox, which holds its network namespace (hostNetwork pods: the host's).
   */
  async connectPort(podUid: string, port: number): Promise<Duplex> {
    const sandbox = (await this.listContainers({ podUid })).find(
      (c) => c.kind === 'sandbox' && c.state === 'running',
    );
    if (sandbox === undefined) throw new RuntimeError(`pod ${podUid} has no running sandbox`);
    return dockerConnectPort(this.docker, sandbox.id, port);
  }

  async exec(id: string, command: readonly string[], timeoutMs: number): Promise<ExecResult> {
    const container = this.docker.getContainer(id);
    const exec = await container.exec({
      Cmd: [...command],
      AttachStdout: true,
      AttachStderr: true,
    });
    const stream = await exec.start({ hijack: true, stdin: false });
    const chunks: Buffer[] = [];
    const done = new Promise<void>((resolve) => {
      stream.on('data', (b: Buffer) => chunks.push(b));
      stream.on('end', () => resolve());
      stream.on('close', () => resolve());
      stream.on('error', () => resolve());
    });
    let cancelTimer: (() => void) | undefined;
    const timedOut = await Promise.race([
      done.then(() => false),
      new Promise<boolean>((resolve) => {
        cancelTimer = afterMs(this.opts.clock, timeoutMs, () => resolve(true));
      }),
    ]);
    cancelTimer?.();
    if (timedOut) {
      stream.destroy();
      return { exitCode: 124, output: `timed out after ${timeoutMs} ms` };
    }
    const info = await exec.inspect();
    return { exitCode: info.ExitCode ?? 1, output: demuxDockerStream(Buffer.concat(chunks)) };
  }

  async stats(id: string): Promise<ContainerStats | undefined> {
    try {
      const s = (await this.docker.getContainer(id).stats({ stream: false })) as unknown as {
        memory_stats?: { usage?: number; stats?: { rss?: number; inactive_file?: number } };
        cpu_stats?: { cpu_usage?: { total_usage?: number } };
      };
      const usage = s.memory_stats?.usage ?? 0;
      const out: ContainerStats = {
        memoryWorkingSetBytes: Math.max(0, usage - (s.memory_stats?.stats?.inactive_file ?? 0)),
      };
      if (s.memory_stats?.stats?.rss !== undefined) out.memoryRssBytes = s.memory_stats.stats.rss;
      if (s.cpu_stats?.cpu_usage?.total_usage !== undefined)
        out.cpuUsageCoreNanoSeconds = s.cpu_stats.cpu_usage.total_usage;
      return out;
    } catch {
      return undefined;
    }
  }

  onEvent(listener: ContainerEventListener): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {
    this.events.abort();
    await this.eventsLoop;
  }

  // ---- image service ----
  private async inspectImage(
    image: string,
  ): Promise<{ id: string; sizeBytes: number } | undefined> {
    try {
      const info = await this.imageDocker.getImage(image).inspect();
      return { id: info.Id, sizeBytes: Number.isFinite(info.Size) ? Math.max(0, info.Size) : 0 };
    } catch (err) {
      if (statusCode(err) === 404) return undefined;
      throw this.wrap(`could not inspect image ${image}`, err);
    }
  }

  private async pullOnce(image: string, auth?: RegistryAuth): Promise<void> {
    await this.limiter?.acquire();
    const stream = await this.imageDocker.pull(
      image,
      auth !== undefined ? { authconfig: auth } : {},
    );
    await new Promise<void>((resolve, reject) => {
      this.imageDocker.modem.followProgress(stream, (err: Error | null) =>
        err ? reject(err) : resolve(),
      );
    });
  }

  /**
   * Pulls anonymously, or with each credential in turn (the pod's pull secrets', then the
   * providers') until one works (the last error wins). Resolves to how long it took once it had
   * a pull slot (ms).
   */
  private async pull(image: string, secrets: readonly RegistryAuth[]): Promise<number> {
    const run = async (): Promise<void> => {
      const auths = [...secrets, ...((await this.opts.credentials?.lookup(image)) ?? [])];
      if (auths.length === 0) {
        await this.pullOnce(image);
        return;
      }
      let last: unknown;
      for (const auth of auths) {
        try {
          await this.pullOnce(image, auth);
          return;
        } catch (err) {
          last = err;
        }
      }
      throw last;
    };
    return this.pulls.run(async () => {
      const t0 = this.opts.clock.nowMs();
      await run();
      return this.opts.clock.nowMs() - t0;
    });
  }

  ensureImage(
    image: string,
    policy: 'Always' | 'IfNotPresent' | 'Never',
    credentials: readonly RegistryAuth[] = [],
    onPulling?: () => void,
  ): Promise<EnsuredImage> {
    return ensureImageWith(
      { inspect: (i) => this.inspectImage(i), pull: (i, c) => this.pull(i, c) },
      image,
      policy,
      credentials,
      onPulling,
    );
  }

  async listImages(): Promise<ImageInfo[]> {
    const list = await this.imageDocker.listImages();
    return list.map((i) => ({
      id: i.Id,
      tags: i.RepoTags ?? [],
      sizeBytes: i.Size,
      createdAtMs: i.Created * 1000,
    }));
  }

  async removeImage(id: string): Promise<void> {
    await this.imageDocker.getImage(id).remove();
  }

  async imageFsInfo(): Promise<ImageFsInfo | undefined> {
    try {
      const info: unknown = await this.imageDocker.info();
      const root =
        typeof info === 'object' &&
        info !== null &&
        'DockerRootDir' in info &&
        typeof info.DockerRootDir === 'string'
          ? info.DockerRootDir
          : '/var/lib/docker';
      const { statfs } = await import('node:fs/promises');
      const s = await statfs(root);
      const capacityBytes = s.blocks * s.bsize;
      return {
        capacityBytes,
        usedBytes: capacityBytes - s.bavail * s.bsize,
        ...(s.files > 0 ? { inodes: s.files, inodesFree: s.ffree } : {}),
      };
    } catch {
      return undefined;
    }
  }
}
