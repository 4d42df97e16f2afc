// The node's addresses under --cloud-provider=external, as the reference decides them: the cloud
// controller manager owns them, so once the Node has any the agent sends none. Before that it
// sends --node-ip's addresses, or only the Hostname address when --node-ip is not given (the
// cloud controller fills in the rest). The provided-node-ip annotation tells the cloud controller
// which IPs the operator chose; it is set only with an external provider and a --node-ip that is
// not 0.0.0.0 or ::, and removed otherwise.
import type { ApiNodeAddress } from './api-node.js';
import { parseNodeIps } from './identity.js';
import type { NodeAddress } from './types.js';

export interface AddressPolicy {
  readonly external: boolean;
  /** --node-ip as given ('' when not). */
  readonly nodeIp: string;
  readonly host: string;
  /** Addresses from --node-ip or the default route, with the Hostname address. */
  readonly own: () => NodeAddress[];
}

/** What the status sends as addresses; undefined leaves the Node's addresses as they are. */
export function addressesToSend(
  p: AddressPolicy,
  onServer: readonly ApiNodeAddress[] | undefined,
): NodeAddress[] | undefined {
  if (!p.external) return p.own();
  if (onServer !== undefined && onServer.length > 0) return undefined;
  if (p.nodeIp.trim() === '') return [{ type: 'Hostname', address: p.host }];
  return p.own();
}

/** The provided-node-ip annotation's value, or undefined when the node must not carry it. */
export function providedNodeIp(external: boolean, nodeIp: string): string | undefined {
  if (!external || nodeIp.trim() === '') return undefined;
  const ips = parseNodeIps(nodeIp);
  if (ips[0] === '0.0.0.0' || ips[0] === '::') return undefined;
  return ips.filter((ip) => ip !== '0.0.0.0' && ip !== '::').join(',');
}
