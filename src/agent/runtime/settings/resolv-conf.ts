// resolv.conf as the reference reads it (pkg/kubelet/network/dns parseResolvConf) and writes it
// for a pod: nameserver lines, one search line, one options line.
import { readFile } from 'node:fs/promises';
import { open } from 'node:fs/promises';

/** The reference reads at most 10 MiB of the host's resolv.conf. */
export const MAX_RESOLV_CONF_BYTES = 10 * (1 << 20);

export interface DnsConfig {
  servers: string[];
  searches: string[];
  options: string[];
}

export function parseResolvConf(text: string): DnsConfig & { errors: string[] } {
  const servers: string[] = [];
  let searches: string[] = [];
  let options: string[] = [];
  const errors: string[] = [];
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed.startsWith('#')) continue;
    const fields = trimmed.split(/\s+/).filter((f) => f !== '');
    const [key, ...rest] = fields;
    if (key === 'nameserver') {
      if (rest[0] !== undefined) servers.push(rest[0]);
      else errors.push('nameserver list is empty ');
    } else if (key === 'search') {
      // the same domain with and without the trailing dot counts once
      searches = rest.map((s) => (s.endsWith('.') ? s.slice(0, -1) : s));
    } else if (key === 'options') {
      options = rest;
    }
  }
  return { servers, searches, options, errors };
}

/** Reads the host's file within the reference's bound; a longer file is an error naming it. */
export async function readResolvConf(path: string): Promise<DnsConfig> {
  const fh = await open(path, 'r');
  let text: string;
  try {
    const st = await fh.stat();
    if (st.size > MAX_RESOLV_CONF_BYTES)
      throw new Error(
        `resolv.conf ${path} is ${st.size} bytes; at most ${MAX_RESOLV_CONF_BYTES} are read`,
      );
    text = await readFile(fh, 'utf8');
  } finally {
    await fh.close();
  }
  const parsed = parseResolvConf(text);
  if (parsed.errors.length > 0) throw new Error(`resolv.conf ${path}: ${parsed.errors.join(', ')}`);
  return { servers: parsed.servers, searches: parsed.searches, options: parsed.options };
}

export function formatResolvConf(c: DnsConfig): string {
  const lines = c.servers.map((s) => `nameserver ${s}`);
  if (c.searches.length > 0) lines.push(`search ${c.searches.join(' ')}`);
  if (c.options.length > 0) lines.push(`options ${c.options.join(' ')}`);
  return lines.join('\n') + '\n';
}
