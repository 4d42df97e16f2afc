// kubeadm writes the node's CRI socket into --container-runtime-endpoint (kubeadm-flags.env), and
// the agent speaks CRI to it (src/agent/runtime/cri). What is still refused at start: an image
// service of another kind than the runtime (a Docker engine's images from a CRI socket, or the
// reverse), naming both flags and what is accepted.
import { endpointKind, type EndpointKind } from '../runtime/cri/endpoint.js';

const KIND_NAMES: Readonly<Record<EndpointKind, string>> = {
  process: 'process:// (host processes)',
  docker: 'a Docker engine',
  cri: 'a CRI runtime',
  'unknown-unix': 'a unix socket',
};

/** Every endpoint problem of the configuration. */
export function criEndpointProblems(config: {
  containerRuntimeEndpoint: string;
  imageServiceEndpoint: string;
}): string[] {
  const image = config.imageServiceEndpoint;
  if (image === '') return [];
  const runtime = endpointKind(config.containerRuntimeEndpoint);
  const images = endpointKind(image);
  if (runtime === 'unknown-unix' || images === 'unknown-unix' || runtime === images) return [];
  if (runtime === 'process') return [];
  return [
    `invalid configuration: imageServiceEndpoint (--image-service-endpoint) ` +
      `${JSON.stringify(image)} is ${KIND_NAMES[images]}, and the runtime ` +
      `(--container-runtime-endpoint ${JSON.stringify(config.containerRuntimeEndpoint)}) ` +
      `is ${KIND_NAMES[runtime]}: the images must come from a service of the same kind ` +
      `(leave --image-service-endpoint empty to use the runtime's)`,
  ];
}
