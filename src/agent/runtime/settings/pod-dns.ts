// A pod's DNS configuration from --cluster-dns, --cluster-domain, --resolv-conf and the pod's
// dnsPolicy and dnsConfig, with the reference's rules and limits (pkg/kubelet/network/dns
// GetPodDNS).
import { z } from 'zod';
import type { Pod } from '../../pod/types.js';
import type { DnsConfig } from './resolv-conf.js';

/**
 * The reference's limits (validation.MaxDNSNameservers, MaxDNSSearchPathsExpanded,
 * MaxDNSSearchListCharsExpanded).
 */
export const MAX_DNS_NAMESERVERS = 3;
export const MAX_DNS_SEARCH_PATHS = 32;
export const MAX_DNS_SEARCH_LIST_CHARS = 2048;
/** DNS1123SubdomainMaxLength: longer search paths make some resolvers abort. */
export const MAX_SEARCH_PATH_LENGTH = 253;
export const DEFAULT_DNS_OPTIONS: readonly string[] = ['ndots:5'];

export interface DnsWarning {
  /** The reference's event reason: DNSConfigForming or MissingClusterDNS. */
  reason: string;
  message: string;
}

export interface PodDnsSettings {
  clusterDNS: readonly string[];
  clusterDomain: string;
  /** --resolv-conf; '' means none. */
  resolvConf: string;
  /** The node's IPs (for the loopback resolver used when --resolv-conf is ''). */
  nodeIPs?: readonly string[];
}

const PodDnsConfigSchema = z
  .object({
    nameservers: z.array(z.string()).optional(),
    searches: z.array(z.string()).optional(),
    options: z
      .array(z.object({ name: z.string(), value: z.string().optional() }).loose())
      .optional(),
  })
  .loose();
export type PodDnsConfig = z.infer<typeof PodDnsConfigSchema>;

type DnsType = 'cluster' | 'host' | 'none';

function omitDuplicates(xs: readonly string[]): string[] {
  return [...new Set(xs)];
}

export function podDnsType(pod: Pod): { type: DnsType; error?: string } {
  const given = pod.spec.dnsPolicy;
  const policy = given === undefined || given === '' ? 'ClusterFirst' : given;
  switch (policy) {
    case 'None':
      return { type: 'none' };
    case 'ClusterFirstWithHostNet':
      return { type: 'cluster' };
    case 'ClusterFirst':
      return { type: pod.spec.hostNetwork ? 'host' : 'cluster' };
    case 'Default':
      return { type: 'host' };
    default:
      return {
        type: 'cluster',
        error: `invalid DNSPolicy=${typeof policy === 'string' ? policy : `<${typeof policy}>`}`,
      };
  }
}

export function mergeDnsOptions(
  existing: readonly string[],
  extra: PodDnsConfig['options'],
): string[] {
  const m = new Map<string, string>();
  for (const op of existing) {
    const i = op.indexOf(':');
    if (i === -1) m.set(op, '');
    else m.set(op.slice(0, i), op.slice(i + 1));
  }
  for (const op of extra ?? []) m.set(op.name, op.value ?? '');
  return [...m].map(([k, v]) => (v === '' ? k : `${k}:${v}`));
}

export function fitSearches(searches: readonly string[], warn: (w: DnsWarning) => void): string[] {
  let exceeded = searches.length > MAX_DNS_SEARCH_PATHS;
  let out = searches.slice(0, MAX_DNS_SEARCH_PATHS);
  const kept = out.filter((s) => s.length <= MAX_SEARCH_PATH_LENGTH);
  if (kept.length !== out.length) exceeded = true;
  out = kept;
  const total = out.join(' ').length;
  if (total > MAX_DNS_SEARCH_LIST_CHARS) {
    let cutLen = 0;
    let cutNum = 0;
    for (let i = out.length - 1; i >= 0; i--) {
      cutLen += (out[i]?.length ?? 0) + 1;
      cutNum++;
      if (total - cutLen <= MAX_DNS_SEARCH_LIST_CHARS) break;
    }
    out = out.slice(0, out.length - cutNum);
    exceeded = true;
  }
  if (exceeded) {
    warn({
      reason: 'DNSConfigForming',
      message:
        `Search Line limits were exceeded, some search paths have been omitted, the ` +
        `applied search line is: ${out.join(' ')}`,
    });
  }
  return out;
}

export function fitNameservers(
  servers: readonly string[],
  warn: (w: DnsWarning) => void,
): string[] {
  if (servers.length <= MAX_DNS_NAMESERVERS) return [...servers];
  const out = servers.slice(0, MAX_DNS_NAMESERVERS);
  warn({
    reason: 'DNSConfigForming',
    message:
      `Nameserver limits were exceeded, some nameservers have been omitted, the applied ` +
      `nameserver line is: ${out.join(' ')}`,
  });
  return out;
}

function clusterSearches(host: readonly string[], pod: Pod, domain: string): string[] {
  if (domain === '') return [...host];
  return omitDuplicates([
    `${pod.metadata.namespace}.svc.${domain}`,
    `svc.${domain}`,
    domain,
    ...host,
  ]);
}

function hostFallback(cfg: DnsConfig, s: PodDnsSettings): DnsConfig {
  // no --resolv-conf: a loopback resolver and a search of '.', which disables lookups elsewhere
  if (s.resolvConf !== '') return cfg;
  const servers = [...cfg.servers];
  for (const ip of s.nodeIPs ?? []) servers.push(ip.includes(':') ? '::1' : '127.0.0.1');
  if (servers.length === 0) servers.push('127.0.0.1');
  return { servers, searches: ['.'], options: cfg.options };
}

/** The pod's resolver configuration; `host` is the parsed --resolv-conf (empty when ''). */
export function podDnsConfig(
  pod: Pod,
  host: DnsConfig,
  s: PodDnsSettings,
  warn: (w: DnsWarning) => void,
): DnsConfig {
  let cfg: DnsConfig = {
    servers: [...host.servers],
    searches: [...host.searches],
    options: [...host.options],
  };
  const { type, error } = podDnsType(pod);
  // the reference logs this and goes on with ClusterFirst (validation normally refuses such a pod
  // first)
  if (error !== undefined)
    warn({
      reason: 'InvalidDNSPolicy',
      message: `${error}: falling back to the ClusterFirst policy`,
    });
  if (type === 'none') cfg = { servers: [], searches: [], options: [] };
  else if (type === 'cluster' && s.clusterDNS.length > 0) {
    cfg = {
      servers: [...s.clusterDNS],
      searches: clusterSearches(cfg.searches, pod, s.clusterDomain),
      options: [...DEFAULT_DNS_OPTIONS],
    };
  } else {
    if (type === 'cluster') {
      const msg =
        'nodeagent does not have ClusterDNS IP configured and cannot create Pod using ' +
        '"ClusterFirst" policy. Falling back to "Default" policy.';
      warn({
        reason: 'MissingClusterDNS',
        message:
          `pod: "${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})". ` + msg,
      });
    }
    cfg = hostFallback(cfg, s);
  }
  const parsed = PodDnsConfigSchema.safeParse(pod.spec.dnsConfig);
  if (parsed.success && pod.spec.dnsConfig !== undefined) {
    cfg = {
      servers: omitDuplicates([...cfg.servers, ...(parsed.data.nameservers ?? [])]),
      searches: omitDuplicates([...cfg.searches, ...(parsed.data.searches ?? [])]),
      options: mergeDnsOptions(cfg.options, parsed.data.options),
    };
  }
  return {
    servers: fitNameservers(cfg.servers, warn),
    searches: fitSearches(cfg.searches, warn),
    options: cfg.options,
  };
}
