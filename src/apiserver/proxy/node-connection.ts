// Where plat-apiserver reaches a node's agent, as the reference's NodeConnectionInfoGetter: the
// first address of the node's status in --kubelet-preferred-address-types order, and the port
// the agent reports in status.daemonEndpoints.kubeletEndpoint.Port (the default port when 0).

import { UnknownStatusError } from './errors.js';
import { isOneOf, listOf, recordOf } from '../../common/util/json-shape.js';

export const NODE_ADDRESS_TYPES = [
  'Hostname',
  'InternalDNS',
  'InternalIP',
  'ExternalDNS',
  'ExternalIP',
] as const;
export const DEFAULT_PREFERRED_ADDRESS_TYPES: readonly string[] = NODE_ADDRESS_TYPES;
/** The reference's --kubelet-port default. */
export const DEFAULT_AGENT_PORT = 10250;

interface NodeAddress {
  type: string;
  address: string;
}

function addressesOf(node: Record<string, unknown>): NodeAddress[] {
  return listOf(recordOf(node['status'])['addresses']).flatMap((a: unknown) => {
    const { type, address } = recordOf(a);
    return typeof type === 'string' && typeof address === 'string' ? [{ type, address }] : [];
  });
}

function portOf(node: Record<string, unknown>): number {
  const endpoints = recordOf(recordOf(node['status'])['daemonEndpoints']);
  const port = recordOf(endpoints['kubeletEndpoint'])['Port'];
  return typeof port === 'number' && Number.isInteger(port) && port > 0 && port <= 65535
    ? port
    : DEFAULT_AGENT_PORT;
}

/** The node's agent address, or the reference's error (`no preferred addresses found; ...`). */
export function nodeConnection(
  node: Record<string, unknown>,
  preferred: readonly string[],
): { host: string; port: number } {
  const addresses = addressesOf(node);
  for (const type of preferred) {
    const hit = addresses.find((a) => a.type === type);
    if (hit !== undefined) return { host: hit.address, port: portOf(node) };
  }
  // The reference also accepts the hostname label when Hostname is preferred; we do not keep one.
  const known = addresses.map((a) => `{${a.type} ${a.address}}`).join(' ');
  throw new UnknownStatusError(`no preferred addresses found; known addresses: [${known}]`);
}

/**
 * --kubelet-preferred-address-types: known types, each at most once. Returns an error text or
 * undefined.
 */
export function checkAddressTypes(types: readonly string[]): string | undefined {
  if (types.length === 0) return 'at least one address type is required';
  const seen = new Set<string>();
  for (const t of types) {
    if (!isOneOf(NODE_ADDRESS_TYPES, t))
      return `unknown address type "${t}"; accepted: ${NODE_ADDRESS_TYPES.join(', ')}`;
    if (seen.has(t)) return `address type "${t}" given more than once`;
    seen.add(t);
  }
  return undefined;
}
