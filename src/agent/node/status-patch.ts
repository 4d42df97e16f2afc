// The strategic merge patch of the node's status, as the reference kubelet sends it. Conditions
// merge by type, so a condition another party sets on the node (node-problem-detector's, a network
// plugin's NetworkUnavailable) stays. Addresses, which the server also merges by type, are replaced
// whole: both InternalIP addresses of a dual-stack node stay, and one the node no longer has goes;
// a status without addresses leaves the Node's (a cloud provider's) alone.
// Capacity, allocatable, nodeInfo and daemonEndpoints merge field by field; images replace the
// server's list (the schema makes it atomic).
import { replacingList } from '../client/replace-list.js';
import type { NodeStatus } from './types.js';

export function nodeStatusPatch(status: NodeStatus): { status: Record<string, unknown> } {
  const { addresses, ...rest } = status;
  return {
    status: {
      ...rest,
      ...(addresses !== undefined ? { addresses: replacingList(addresses) } : {}),
    },
  };
}
