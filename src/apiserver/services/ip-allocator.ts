// Cluster IPs from --service-cluster-ip-range (IPv4), as the reference's bitmap allocator hands
// them out: the network and broadcast addresses are never given; the first address is the
// `kubernetes` service's; a dynamic allocation takes a random free address from the upper band
// (above min(max(16, size/16), 256) addresses) and falls back to the lower band; a requested
// address must be in range and free. What is in use is what stored Services hold (kept from the
// store's changes) plus what a create in flight has reserved.

import { randomInt } from 'node:crypto';
import { isIPv4 } from 'node:net';

export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';

/** The reference's ipallocator errors. */
export const ERR_ALLOCATED = 'provided IP is already allocated';
export const ERR_FULL = 'range is full';

function toInt(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function toIp(n: number): string {
  return [24, 16, 8, 0].map((s) => String(Math.floor(n / 2 ** s) % 256)).join('.');
}

/** The CIDR's network and prefix length; a problem (the flag's words) as a string. */
export function parseCidr(text: string): { network: number; bits: number } | string {
  const m = /^([0-9.]+)\/(\d{1,2})$/.exec(text.trim());
  if (m === null || !isIPv4(m[1] ?? '') || Number(m[2]) > 32)
    return (
      `invalid CIDR address: ${text} (an IPv4 range such as ` +
      `${DEFAULT_SERVICE_CLUSTER_IP_RANGE})`
    );
  const bits = Number(m[2]);
  const size = 2 ** (32 - bits);
  return { network: Math.floor(toInt(m[1] ?? '') / size) * size, bits };
}

export class ClusterIpAllocator {
  readonly cidr: string;
  private readonly network: number;
  /** Usable addresses: network+1 .. network+max. */
  private readonly max: number;
  private readonly offset: number;
  /** Addresses held: by stored Services (owner key) or reserved by a create in flight. */
  private readonly held = new Map<string, string>();

  constructor(range: { network: number; bits: number }) {
    this.network = range.network;
    const size = 2 ** (32 - range.bits);
    this.max = Math.max(0, size - 2);
    this.offset = size <= 16 ? 0 : Math.min(256, Math.max(16, Math.floor(size / 16)));
    this.cidr = `${toIp(range.network)}/${range.bits}`;
  }

  /** The first address of the range (the `kubernetes` service's). */
  firstIp(): string {
    return toIp(this.network + 1);
  }

  /** The index of an address in the range, or undefined when it is not a usable one. */
  private indexOf(ip: string): number | undefined {
    if (!isIPv4(ip)) return undefined;
    const i = toInt(ip) - this.network - 1;
    return i >= 0 && i < this.max ? i : undefined;
  }

  /**
   * A stored Service holds `ip` (owner: its storage key); a foreign or "None" address is ignored.
   */
  hold(ip: string, owner: string): void {
    if (this.indexOf(ip) !== undefined) this.held.set(ip, owner);
  }

  release(ip: string, owner: string): void {
    if (this.held.get(ip) === owner) this.held.delete(ip);
  }

  /**
   * Reserves `requested` (or the next free address) for `owner`; a problem as the reference words
   * it.
   */
  allocate(
    owner: string,
    requested: string | undefined,
  ): { ip: string } | { error: string; internal: boolean } {
    if (requested !== undefined) {
      if (this.indexOf(requested) === undefined)
        return {
          error:
            `the provided IP (${requested}) is not in the valid range. The range of valid ` +
            `IPs is ${this.cidr}`,
          internal: false,
        };
      if (this.held.has(requested)) return { error: ERR_ALLOCATED, internal: false };
      this.held.set(requested, owner);
      return { ip: requested };
    }
    const next = this.nextFree();
    if (next === undefined) return { error: ERR_FULL, internal: true };
    const ip = toIp(this.network + 1 + next);
    this.held.set(ip, owner);
    return { ip };
  }

  private nextFree(): number | undefined {
    const free = (i: number): boolean => !this.held.has(toIp(this.network + 1 + i));
    const upper = this.max - this.offset;
    if (upper > 0) {
      const start = randomInt(upper);
      for (let i = 0; i < upper; i++) {
        const at = this.offset + ((start + i) % upper);
        if (free(at)) return at;
      }
    }
    if (this.offset > 0) {
      const start = randomInt(this.offset);
      for (let i = 0; i < this.offset; i++) {
        const at = (start + i) % this.offset;
        if (free(at)) return at;
      }
    }
    return undefined;
  }
}
