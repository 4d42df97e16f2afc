// A CRI endpoint as the reference takes it (--container-runtime-endpoint,
// --image-service-endpoint): `unix://` and an absolute socket path. The gRPC target is the same
// URL; anything else is refused naming the flag and what is accepted.
import { isAbsolute } from 'node:path';
import { ConfigError } from '../../../common/util/errors.js';

/** The longest unix socket path the kernel takes (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;

/** Socket file names that are CRI runtimes' (what kubeadm detects), and the runtime's name. */
export const CRI_SOCKET_NAMES: Readonly<Record<string, string>> = {
  'containerd.sock': 'containerd',
  'crio.sock': 'cri-o',
};

export interface CriEndpoint {
  /** The socket's path on the host. */
  readonly path: string;
  /** What grpc-js connects to. */
  readonly target: string;
}

export function parseCriEndpoint(field: string, flag: string, endpoint: string): CriEndpoint {
  const path = endpoint.startsWith('unix://') ? endpoint.slice('unix://'.length) : '';
  const problem =
    path === '' || !isAbsolute(path)
      ? 'accepted is unix:// and an absolute socket path, e.g. ' +
        'unix:///run/containerd/containerd.sock'
      : Buffer.byteLength(path) > MAX_SOCKET_PATH
        ? `the socket path is ${Buffer.byteLength(path)} bytes, over the ` +
          `${MAX_SOCKET_PATH} a unix socket takes`
        : undefined;
  if (problem !== undefined)
    throw new ConfigError(
      `invalid configuration: ${field} (${flag}) ${JSON.stringify(endpoint)}: ${problem}`,
      { field, flag },
    );
  return { path, target: `unix://${path}` };
}

/** The CRI runtime whose well-known socket `endpoint` names, or undefined. */
export function criRuntimeNamed(endpoint: string): string | undefined {
  if (!endpoint.startsWith('unix://')) return undefined;
  return CRI_SOCKET_NAMES[endpoint.slice(endpoint.lastIndexOf('/') + 1)];
}

/** Which runtime an endpoint names: host processes, a Docker engine, a CRI runtime, or unknown. */
export type EndpointKind = 'process' | 'docker' | 'cri' | 'unknown-unix';

export function endpointKind(endpoint: string): EndpointKind {
  if (endpoint.startsWith('process://')) return 'process';
  if (endpoint.startsWith('tcp://')) return 'docker';
  if (!endpoint.startsWith('unix://')) return 'unknown-unix';
  const base = endpoint.slice(endpoint.lastIndexOf('/') + 1);
  if (base === 'docker.sock') return 'docker';
  if (criRuntimeNamed(endpoint) !== undefined || /^(cri-dockerd|dockershim)\.sock$/.test(base))
    return 'cri';
  return 'unknown-unix';
}
