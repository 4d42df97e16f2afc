// kubeadm writes the node's CRI socket into --container-runtime-endpoint (kubeadm-flags.env). The
// agent speaks the Docker Engine API (or runs host processes), not CRI's gRPC: a CRI runtime's
// well-known socket is refused at start, naming the flag, the runtime and what is accepted,
// instead of retrying an endpoint that can never answer.

/** Socket file names of the CRI runtimes kubeadm detects, and the runtime each belongs to. */
const CRI_SOCKETS: Readonly<Record<string, string>> = {
  'containerd.sock': 'containerd',
  'crio.sock': 'CRI-O',
  'cri-dockerd.sock': 'cri-dockerd',
  'dockershim.sock': 'dockershim',
};

const ACCEPTED =
  'accepted are unix:///path/to/docker.sock, tcp://host:port (a Docker engine) or process:// (host processes)';

/** The CRI runtime whose socket `endpoint` names, or undefined. */
export function criRuntimeOf(endpoint: string): string | undefined {
  if (!endpoint.startsWith('unix://')) return undefined;
  const base = endpoint.slice(endpoint.lastIndexOf('/') + 1);
  return CRI_SOCKETS[base];
}

/** The problem with a CRI endpoint in `field` (set by `flag`), or undefined when it is none. */
export function criEndpointProblem(
  field: string,
  flag: string,
  endpoint: string,
): string | undefined {
  const runtime = criRuntimeOf(endpoint);
  if (runtime === undefined) return undefined;
  const hint =
    runtime === 'cri-dockerd'
      ? ` (cri-dockerd fronts a Docker engine: give its socket, usually unix:///var/run/docker.sock)`
      : '';
  return `invalid configuration: ${field} (${flag}) ${JSON.stringify(endpoint)} is the CRI (gRPC) socket of ${runtime}, and nodeagent does not speak CRI: ${ACCEPTED}${hint}`;
}

/** Every CRI endpoint problem of the configuration. */
export function criEndpointProblems(config: {
  containerRuntimeEndpoint: string;
  imageServiceEndpoint: string;
}): string[] {
  return [
    criEndpointProblem(
      'containerRuntimeEndpoint',
      '--container-runtime-endpoint',
      config.containerRuntimeEndpoint,
    ),
    criEndpointProblem(
      'imageServiceEndpoint',
      '--image-service-endpoint',
      config.imageServiceEndpoint,
    ),
  ].filter((p): p is string => p !== undefined);
}
