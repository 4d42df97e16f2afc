// The CRI runtime from the agent's runtime options: the endpoints parsed as the reference takes
// them (--image-service-endpoint defaults to the runtime's), the runtime's name guessed from its
// socket until Version tells it.
import type { Clock } from '../../../common/util/clock.js';
import type { Logger } from '../../../common/log/types.js';
import type { ImageCredentialSource } from '../credentials/keyring.js';
import type { PodRuntimeSettings } from '../settings/container-settings.js';
import { criRuntimeNamed, parseCriEndpoint } from './endpoint.js';
import { probeUnixSocket } from './detect.js';
import { CriRuntime } from './runtime.js';

/** Whether a unix socket of no known name answers as a gRPC (CRI) server rather than Docker. */
export async function isCriSocket(endpoint: string, clock: Clock): Promise<boolean> {
  return (await probeUnixSocket(endpoint.slice('unix://'.length), clock)) === 'cri';
}

/** The runtime factory's options a CRI runtime takes (a subset of RuntimeFactoryOptions). */
export interface CriFactoryOptions {
  /** The agent's --root-dir: each pod's managed hosts file goes under it. */
  rootDir: string;
  imageEndpoint: string;
  requestTimeoutMs: number;
  serializeImagePulls: boolean;
  maxParallelImagePulls?: number;
  registryPullQPS: number;
  registryBurst: number;
  podLogsDir?: string;
  nodeName?: string;
  podSettings?: PodRuntimeSettings;
  credentials?: ImageCredentialSource;
  hairpinMode?: string;
  logger: Logger;
  clock: Clock;
}

/**
 * --hairpin-mode is the CNI plugin's on a CRI runtime (the bridge plugin's hairpinMode): said once.
 */
function noteHairpin(opts: CriFactoryOptions): void {
  if (opts.hairpinMode === undefined || opts.hairpinMode === 'none') return;
  const reason =
    "a CRI runtime's pod network is its CNI plugin's (the bridge plugin's hairpinMode)";
  opts.logger.warn(
    { option: '--hairpin-mode', reason, effect: 'hairpin mode is not set by the agent' },
    `--hairpin-mode cannot take effect on this runtime: ${reason}; hairpin mode is not ` +
      `set by the agent`,
  );
}

export function criRuntime(opts: CriFactoryOptions, endpoint: string): CriRuntime {
  noteHairpin(opts);
  const runtime = parseCriEndpoint(
    'containerRuntimeEndpoint',
    '--container-runtime-endpoint',
    endpoint,
  );
  const image =
    opts.imageEndpoint === ''
      ? runtime
      : parseCriEndpoint('imageServiceEndpoint', '--image-service-endpoint', opts.imageEndpoint);
  return new CriRuntime({
    runtime,
    image,
    guessedName: criRuntimeNamed(endpoint) ?? 'containerd',
    rootDir: opts.rootDir,
    requestTimeoutMs: opts.requestTimeoutMs,
    serializeImagePulls: opts.serializeImagePulls,
    ...(opts.maxParallelImagePulls !== undefined
      ? { maxParallelImagePulls: opts.maxParallelImagePulls }
      : {}),
    registryPullQPS: opts.registryPullQPS,
    registryBurst: opts.registryBurst,
    podLogsDir: opts.podLogsDir ?? '/var/log/pods',
    ...(opts.nodeName !== undefined ? { nodeName: opts.nodeName } : {}),
    ...(opts.podSettings !== undefined ? { podSettings: opts.podSettings } : {}),
    ...(opts.credentials !== undefined ? { credentials: opts.credentials } : {}),
    logger: opts.logger,
    clock: opts.clock,
  });
}
