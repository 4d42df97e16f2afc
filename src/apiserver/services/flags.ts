// The Service flags: --service-cluster-ip-range (the reference's default 10.0.0.0/24; one IPv4
// range, its mask at least /12 and at most /30) and --advertise-address (the address the
// `kubernetes` service's endpoints name; default the bind address, or the host's first
// non-internal IPv4 address when binding to all).

import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { FlagError } from '../../common/util/errors.js';
import type { ExtraFlag } from '../flags.js';
import { ClusterIpAllocator, DEFAULT_SERVICE_CLUSTER_IP_RANGE, parseCidr } from './ip-allocator.js';

export const SERVICE_FLAGS: readonly ExtraFlag[] = [
  {
    name: 'service-cluster-ip-range',
    help:
      `A CIDR notation IPv4 range from which to assign service cluster IPs (default ` +
      `"${DEFAULT_SERVICE_CLUSTER_IP_RANGE}"); its first address is the kubernetes ` +
      `service's. The mask must be between /12 and /30.`,
  },
  {
    name: 'advertise-address',
    help:
      'The IP address the kubernetes service (default namespace) sends clients to, with ' +
      '--secure-port. Default: --bind-address, or the first non-internal IPv4 address of ' +
      'this host when binding to all addresses.',
  },
];

export function clusterIpAllocatorOf(text: string | undefined): ClusterIpAllocator {
  const flag = 'service-cluster-ip-range';
  const value = text ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE;
  if (value.includes(','))
    throw new FlagError(
      `invalid value "${value}" for flag --${flag}: only one IPv4 range is served here ` +
        `(plat-apiserver is single-stack IPv4)`,
      { flag },
    );
  const range = parseCidr(value);
  if (typeof range === 'string')
    throw new FlagError(`invalid value "${value}" for flag --${flag}: ${range}`, { flag });
  if (range.bits < 12)
    throw new FlagError(
      `specified --${flag} is too large; for 32-bit addresses, the mask must be >= 12`,
      { flag },
    );
  if (range.bits > 30)
    throw new FlagError(
      `invalid value "${value}" for flag --${flag}: the range holds no address for a ` +
        `service (the mask must be at most /30)`,
      { flag },
    );
  return new ClusterIpAllocator(range);
}

function hostAddress(): string {
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

export function advertiseAddressOf(text: string | undefined, bindAddress: string): string {
  if (text !== undefined) {
    if (isIP(text) === 0 || text === '0.0.0.0' || text === '::')
      throw new FlagError(
        `invalid value "${text}" for flag --advertise-address: must be an IP address ` +
          `clients can reach`,
        { flag: 'advertise-address' },
      );
    return text;
  }
  return bindAddress === '0.0.0.0' || bindAddress === '::' ? hostAddress() : bindAddress;
}
