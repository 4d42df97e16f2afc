// The node's name and addresses. The name is --hostname-override or the host name, lower-cased.
// Addresses come from --node-ip (one IP, or an IPv4/IPv6 pair for dual-stack; `0.0.0.0` means the
// default IPv4 and `::` the default IPv6 address, preferred first) or else from the interface
// that carries the default route (IPv4 first, then IPv6), plus the Hostname address.

import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname as osHostname, networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { ConfigError } from '../../common/util/errors.js';
import type { NodeAddress } from './types.js';

export function nodeName(
  hostnameOverride: string | undefined,
  host: string = osHostname(),
): string {
  const name = (
    hostnameOverride !== undefined && hostnameOverride.trim() !== ''
      ? hostnameOverride.trim()
      : host
  ).toLowerCase();
  if (name === '')
    throw new ConfigError('the node name is empty: set --hostname-override', {
      flag: '--hostname-override',
    });
  return name;
}

/** Interfaces named by the default routes in /proc/net/route and /proc/net/ipv6_route. */
export function defaultRouteInterfaces(
  readFile: (p: string) => string = (p) => readFileSync(p, 'utf8'),
): { v4?: string; v6?: string } {
  const out: { v4?: string; v6?: string } = {};
  try {
    for (const line of readFile('/proc/net/route').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 7 && f[1] === '00000000' && f[7] === '00000000' && f[0] !== undefined) {
        out.v4 = f[0];
        break;
      }
    }
  } catch {
    // no IPv4 routing table
  }
  try {
    for (const line of readFile('/proc/net/ipv6_route').split('\n')) {
      const f = line.trim().split(/\s+/);
      if (
        f.length >= 10 &&
        f[0] === '00000000000000000000000000000000' &&
        f[1] === '00' &&
        f[9] !== undefined &&
        f[9] !== 'lo'
      ) {
        out.v6 = f[9];
        break;
      }
    }
  } catch {
    // no IPv6 routing table
  }
  return out;
}

function globalAddress(
  infos: readonly NetworkInterfaceInfo[] | undefined,
  family: 'IPv4' | 'IPv6',
): string | undefined {
  return infos?.find(
    (i) =>
      i.family === family &&
      !i.internal &&
      !(family === 'IPv6' && i.address.toLowerCase().startsWith('fe80')),
  )?.address;
}

export interface AddressSources {
  interfaces?: () => NodeJS.Dict<NetworkInterfaceInfo[]>;
  routes?: () => { v4?: string; v6?: string };
}

function defaultIp(family: 'IPv4' | 'IPv6', src: Required<AddressSources>): string | undefined {
  const ifs = src.interfaces();
  const routes = src.routes();
  const routed = family === 'IPv4' ? routes.v4 : routes.v6;
  if (routed !== undefined) {
    const a = globalAddress(ifs[routed], family);
    if (a !== undefined) return a;
  }
  for (const infos of Object.values(ifs)) {
    const a = globalAddress(infos, family);
    if (a !== undefined) return a;
  }
  return undefined;
}

/** Parses --node-ip: one or two comma-separated IPs, at most one per family. */
export function parseNodeIps(nodeIp: string): string[] {
  const ips = nodeIp
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const problem = (why: string): ConfigError =>
    new ConfigError(`invalid --node-ip "${nodeIp}": ${why}`, { flag: '--node-ip' });
  if (ips.length > 2) throw problem('at most two IPs (one IPv4 and one IPv6) may be given');
  for (const ip of ips) if (isIP(ip) === 0) throw problem(`"${ip}" is not an IP address`);
  const [first, second] = ips;
  if (first !== undefined && second !== undefined && isIP(first) === isIP(second))
    throw problem('dual-stack IPs must be one IPv4 and one IPv6 address');
  return ips;
}

export function nodeAddresses(
  nodeIp: string | undefined,
  host: string,
  sources: AddressSources = {},
): NodeAddress[] {
  const src: Required<AddressSources> = {
    interfaces: sources.interfaces ?? networkInterfaces,
    routes: sources.routes ?? (() => defaultRouteInterfaces()),
  };
  const ips: string[] = [];
  const given = nodeIp === undefined || nodeIp === '' ? [] : parseNodeIps(nodeIp);
  if (given.length === 0) {
    const v4 = defaultIp('IPv4', src);
    const v6 = defaultIp('IPv6', src);
    if (v4 !== undefined) ips.push(v4);
    else if (v6 !== undefined) ips.push(v6);
  } else {
    for (const ip of given) {
      if (ip === '0.0.0.0') {
        const v4 = defaultIp('IPv4', src) ?? defaultIp('IPv6', src);
        if (v4 !== undefined) ips.push(v4);
      } else if (ip === '::') {
        // `::` prefers IPv6 but falls back to IPv4 on a host without one.
        const v6 = defaultIp('IPv6', src) ?? defaultIp('IPv4', src);
        if (v6 !== undefined) ips.push(v6);
      } else {
        ips.push(ip);
      }
    }
  }
  const unique = [...new Set(ips)];
  return [
    ...unique.map((address) => ({ type: 'InternalIP' as const, address })),
    { type: 'Hostname', address: host },
  ];
}
