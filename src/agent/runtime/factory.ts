// Chooses the runtime from --container-runtime-endpoint: `process://` runs host processes,
// `tcp://` and a `unix://` docker.sock talk to a Docker engine, a CRI runtime's socket
// (containerd.sock, crio.sock, cri-dockerd.sock) speaks CRI; another unix socket is asked which it
// is. Each is loaded lazily, so process:// never pays for Docker or gRPC.
import type { Clock } from '../../common/util/clock.js';
import { BackoffSequence } from '../../common/util/backoff.js';
import type { Logger } from '../../common/log/types.js';
import { ConfigError, userMessage } from '../../common/util/errors.js';
import type { ContainerRuntime, ImageService } from './types.js';
import { applyStandalonePodCIDR } from './pod-cidr.js';
import type { PodRuntimeSettings } from './settings/container-settings.js';
import type { ImageCredentialSource } from './credentials/keyring.js';

export interface RuntimeFactoryOptions {
  endpoint: string;
  imageEndpoint: string;
  rootDir: string;
  requestTimeoutMs: number;
  serializeImagePulls: boolean;
  /** Docker: the most pulls at once with serializeImagePulls false (maxParallelImagePulls). */
  maxParallelImagePulls?: number;
  registryPullQPS: number;
  registryBurst: number;
  /** Docker's json-file log rotation (process:// logs are rotated by the GC). */
  containerLogMaxSize?: string;
  containerLogMaxFiles?: number;
  /** Docker: containers are labelled with it and only this node's are listed. */
  nodeName?: string;
  /** Resources, pids, oom_score_adj, seccomp and DNS from the agent's flags. */
  podSettings?: PodRuntimeSettings;
  /** Docker: registry credentials from the credential provider plugins. */
  credentials?: ImageCredentialSource;
  /** --hairpin-mode (promiscuous-bridge, hairpin-veth, none); absent: none. */
  hairpinMode?: string;
  /** Standalone --pod-cidr, handed to the runtime before any pod starts; '' or absent: none. */
  podCIDR?: string;
  /** CRI: the directory the runtime writes container logs under (podLogsDir). */
  podLogsDir?: string;
  logger: Logger;
  clock: Clock;
}

export interface RuntimeBundle {
  runtime: ContainerRuntime;
  images: ImageService;
  /**
   * Waits (with back-off and a log line) until the runtime answers; `onDown` is called once when
   * the first try finds it not answering.
   */
  waitReady(signal: AbortSignal, onDown?: () => void): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_DOCKER_ENDPOINT = 'unix:///run/docker.sock';

/** --hairpin-mode on Docker: the hairpin-veth setter, or undefined for none. */
async function dockerHairpin(
  opts: RuntimeFactoryOptions,
): Promise<{ sandboxStarted(podName: string, pid: number): Promise<void> } | undefined> {
  if (opts.hairpinMode === undefined) return undefined;
  const { HairpinVeth, effectiveHairpinMode } = await import('./docker/hairpin.js');
  return effectiveHairpinMode(opts.hairpinMode, opts.logger) === 'hairpin-veth'
    ? new HairpinVeth({ logger: opts.logger })
    : undefined;
}

type RuntimeAndImages = ContainerRuntime & ImageService;

/** process://: host processes, each request bounded by --runtime-request-timeout. */
async function processRuntime(opts: RuntimeFactoryOptions): Promise<RuntimeAndImages> {
  const { ProcessRuntime } = await import('./process/runtime.js');
  const { withRequestTimeout } = await import('./request-timeout.js');
  const r = withRequestTimeout(
    new ProcessRuntime({
      rootDir: opts.rootDir,
      logger: opts.logger,
      clock: opts.clock,
      ...(opts.podSettings !== undefined ? { podSettings: opts.podSettings } : {}),
    }),
    { timeoutMs: opts.requestTimeoutMs, clock: opts.clock },
  );
  if (opts.hairpinMode !== undefined && opts.hairpinMode !== 'none') {
    const reason =
      "the process:// runtime runs pods in the host's network namespace: they have no " +
      'veth or bridge port';
    opts.logger.warn(
      { option: '--hairpin-mode', reason, effect: 'hairpin mode is not set' },
      `--hairpin-mode cannot take effect on this host: ${reason}; hairpin mode is not set`,
    );
  }
  return r;
}

/** unix:// or tcp://: a Docker engine (images from --image-service-endpoint when set). */
async function dockerRuntime(
  opts: RuntimeFactoryOptions,
  endpoint: string,
): Promise<RuntimeAndImages> {
  const { DockerRuntime } = await import('./docker/runtime.js');
  const hairpin = await dockerHairpin(opts);
  const imageEndpoint = opts.imageEndpoint === '' ? endpoint : opts.imageEndpoint;
  return new DockerRuntime({
    endpoint,
    imageEndpoint,
    requestTimeoutMs: opts.requestTimeoutMs,
    serializeImagePulls: opts.serializeImagePulls,
    ...(opts.maxParallelImagePulls !== undefined
      ? { maxParallelImagePulls: opts.maxParallelImagePulls }
      : {}),
    registryPullQPS: opts.registryPullQPS,
    registryBurst: opts.registryBurst,
    rootDir: opts.rootDir,
    logger: opts.logger,
    clock: opts.clock,
    ...(opts.containerLogMaxSize !== undefined
      ? { containerLogMaxSize: opts.containerLogMaxSize }
      : {}),
    ...(opts.containerLogMaxFiles !== undefined
      ? { containerLogMaxFiles: opts.containerLogMaxFiles }
      : {}),
    ...(opts.nodeName !== undefined ? { nodeName: opts.nodeName } : {}),
    ...(opts.podSettings !== undefined ? { podSettings: opts.podSettings } : {}),
    ...(opts.credentials !== undefined ? { credentials: opts.credentials } : {}),
    ...(hairpin !== undefined ? { hairpin } : {}),
  });
}

/**
 * Asks the runtime its version until it answers, with back-off; logs the first tries and every
 * tenth.
 */
async function waitRuntimeReady(
  runtime: ContainerRuntime,
  opts: RuntimeFactoryOptions,
  endpoint: string,
  signal: AbortSignal,
  onDown?: () => void,
): Promise<void> {
  const backoff = new BackoffSequence({
    clock: opts.clock,
    policy: { initialMs: 500, maxMs: 10_000 },
  });
  let logged = 0;
  for (;;) {
    try {
      const v = await runtime.version();
      opts.logger.info(
        { runtime: v.runtimeName, version: v.runtimeVersion, apiVersion: v.runtimeApiVersion },
        'container runtime ready',
      );
      return;
    } catch (err) {
      if (logged === 0) onDown?.();
      if (logged++ < 3 || logged % 10 === 0) {
        opts.logger.warn(
          { endpoint, err: userMessage(err), retryInMs: backoff.peekMs() },
          'container runtime not answering; is the engine running at this endpoint? retrying',
        );
      }
    }
    await backoff.sleep(signal);
  }
}

/** The runtime an endpoint's kind names (a unix socket of another name is probed). */
async function runtimeFor(
  opts: RuntimeFactoryOptions,
  endpoint: string,
): Promise<RuntimeAndImages | undefined> {
  const { endpointKind } = await import('./cri/endpoint.js');
  const kind = endpointKind(endpoint);
  if (kind === 'process') return processRuntime(opts);
  if (kind === 'docker') return dockerRuntime(opts, endpoint);
  if (!endpoint.startsWith('unix://')) return undefined;
  const { criRuntime, isCriSocket } = await import('./cri/from-options.js');
  if (kind === 'cri' || (await isCriSocket(endpoint, opts.clock)))
    return criRuntime(opts, endpoint);
  return dockerRuntime(opts, endpoint);
}

export async function createRuntime(opts: RuntimeFactoryOptions): Promise<RuntimeBundle> {
  const endpoint = opts.endpoint === '' ? DEFAULT_DOCKER_ENDPOINT : opts.endpoint;
  const runtime = await runtimeFor(opts, endpoint);
  if (runtime === undefined) {
    throw new ConfigError(
      `invalid configuration: containerRuntimeEndpoint (--container-runtime-endpoint) "` +
        `${endpoint}": accepted are unix:///path/to/docker.sock, tcp://host:port (a Docker ` +
        `engine), unix:///path/to/containerd.sock or crio.sock (a CRI runtime) or ` +
        `process:// (host processes)`,
      { field: 'containerRuntimeEndpoint', flag: '--container-runtime-endpoint' },
    );
  }
  applyStandalonePodCIDR(runtime, opts.podCIDR ?? '', opts.logger);
  return {
    runtime,
    images: runtime,
    waitReady: (signal: AbortSignal, onDown?: () => void) =>
      waitRuntimeReady(runtime, opts, endpoint, signal, onDown),
    close: () => runtime.close(),
  };
}
