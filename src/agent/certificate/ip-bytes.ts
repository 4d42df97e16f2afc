// The bytes of an IP address, as a certificate's iPAddress names carry them (RFC 5280 4.2.1.6:
// 4 octets for IPv4, 16 for IPv6), from the text forms node:net's isIP accepts.
import { isIP } from 'node:net';

/**
 * The 16-bit groups of an IPv6 text, '::' expanded and a trailing dotted IPv4 part split in two.
 */
function ipv6Groups(text: string): number[] {
  let t = text;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(t)?.[1];
  if (v4 !== undefined) {
    const b = ipAddressBytes(v4);
    t =
      `${t.slice(0, -v4.length)}${b.readUInt16BE(0).toString(16)}:` +
      b.readUInt16BE(2).toString(16);
  }
  const parts = (s: string | undefined): number[] =>
    s === undefined || s === '' ? [] : s.split(':').map((g) => parseInt(g, 16));
  const [head, tail] = t.split('::');
  const h = parts(head);
  if (tail === undefined) return h;
  const rest = parts(tail);
  return [...h, ...new Array<number>(8 - h.length - rest.length).fill(0), ...rest];
}

/** 4 bytes for an IPv4 address, 16 for IPv6; anything else (a zone index too) is an error. */
export function ipAddressBytes(ip: string): Buffer {
  const family = ip.includes('%') ? 0 : isIP(ip);
  if (family === 4) return Buffer.from(ip.split('.').map(Number));
  if (family !== 6)
    throw new Error(`${JSON.stringify(ip)} is not an IP address (IPv4 or IPv6, without a zone)`);
  const out = Buffer.alloc(16);
  ipv6Groups(ip).forEach((g, i) => out.writeUInt16BE(g, i * 2));
  return out;
}
