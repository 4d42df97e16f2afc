// The pod's hostname, domain and agent-managed /etc/hosts as the reference's kubelet makes them
// (GeneratePodHostNameAndDomain, GetNodenameForKernel, managedHostsFileContent): the file lives at
// <root>/pods/<uid>/etc-hosts (mode 0644) and is mounted over each container's /etc/hosts unless
// a volume mount already covers that path; hostNetwork pods get the node's file with a header.
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../../common/util/atomic-file.js';
import { isDns1123Label } from '../../../common/util/names.js';
import { RuntimeError } from '../../../common/util/errors.js';
import { joinUnder, mkdirUnder } from '../../../common/util/safe-path.js';
import type { Container, Pod } from '../../pod/types.js';

/** The cluster domain when --cluster-domain is not given (the reference's default too). */
export const DEFAULT_CLUSTER_DOMAIN = 'cluster.local';
export const MANAGED_HOSTS_HEADER = '# Kubernetes-managed hosts file.\n';
export const MANAGED_HOSTS_HEADER_HOST_NETWORK =
  '# Kubernetes-managed hosts file (host network).\n';
const HOSTNAME_MAX = 63;
const FQDN_MAX = 64;

/**
 * The pod's hostname (spec.hostname or its name, cut to 63) and domain
 * (<subdomain>.<ns>.svc.<cluster domain>).
 */
export function podHostnameAndDomain(
  pod: Pod,
  clusterDomain: string,
): { hostname: string; domain: string } {
  let hostname = pod.metadata.name;
  const h = pod.spec.hostname ?? '';
  if (h !== '') {
    const msgs = isDns1123Label(h);
    if (msgs.length > 0)
      throw new RuntimeError(`pod Hostname "${h}" is not a valid DNS label: ${msgs.join(';')}`);
    hostname = h;
  }
  if (hostname.length > HOSTNAME_MAX) {
    hostname = hostname.slice(0, HOSTNAME_MAX).replace(/[-.]+$/, '');
    if (hostname === '')
      throw new RuntimeError(`hostname for pod "${pod.metadata.name}" was invalid: "${h}"`);
  }
  let domain = '';
  const sub = pod.spec.subdomain ?? '';
  if (sub !== '') {
    const msgs = isDns1123Label(sub);
    if (msgs.length > 0)
      throw new RuntimeError(`pod Subdomain "${sub}" is not a valid DNS label: ${msgs.join(';')}`);
    domain = `${sub}.${pod.metadata.namespace}.svc.${clusterDomain}`;
  }
  return { hostname, domain };
}

/** The kernel's hostname: the FQDN with setHostnameAsFQDN and a domain (64 characters at most). */
export function kernelHostname(hostname: string, domain: string, asFqdn: boolean): string {
  if (domain === '' || !asFqdn) return hostname;
  const fqdn = `${hostname}.${domain}`;
  if (fqdn.length > FQDN_MAX)
    throw new RuntimeError(
      `failed to construct FQDN from pod hostname and cluster domain, FQDN ${fqdn} is ` +
        `too long (${FQDN_MAX} characters is the max, ${fqdn.length} characters requested)`,
    );
  return fqdn;
}

function aliasEntries(pod: Pod): string {
  const aliases = pod.spec.hostAliases ?? [];
  if (aliases.length === 0) return '';
  const lines = aliases.map((a) => `${a.ip}\t${(a.hostnames ?? []).join('\t')}\n`);
  return `\n# Entries added by HostAliases.\n${lines.join('')}`;
}

/** The managed file of a pod with its own network. */
export function managedHostsContent(
  podIPs: readonly string[],
  hostname: string,
  domain: string,
  pod: Pod,
): string {
  const own = podIPs.map((ip) =>
    domain === '' ? `${ip}\t${hostname}\n` : `${ip}\t${hostname}.${domain}\t${hostname}\n`,
  );
  return [
    MANAGED_HOSTS_HEADER,
    '127.0.0.1\tlocalhost\n',
    '::1\tlocalhost ip6-localhost ip6-loopback\n',
    'fe00::0\tip6-localnet\n',
    'fe00::0\tip6-mcastprefix\n',
    'fe00::1\tip6-allnodes\n',
    'fe00::2\tip6-allrouters\n',
    ...own,
    aliasEntries(pod),
  ].join('');
}

/** The node's file under the host-network header, with the pod's aliases after it. */
export function hostNetworkHostsContent(nodeHosts: string, pod: Pod): string {
  return `${MANAGED_HOSTS_HEADER_HOST_NETWORK}${nodeHosts}${aliasEntries(pod)}`;
}

/** Whether the container gets the managed file: not when one of its mounts is /etc/hosts. */
export function mountsHostsFile(c: Container): boolean {
  return !(c.volumeMounts ?? []).some((m) => m.mountPath === '/etc/hosts');
}

export interface PodHostsFileInput {
  rootDir: string;
  pod: Pod;
  podIPs: readonly string[];
  clusterDomain: string;
  /** The node's hosts file (hostNetwork pods). */
  nodeHostsPath?: string;
}

/** Writes the pod's file afresh and gives its path. */
export async function writePodHostsFile(inp: PodHostsFileInput): Promise<string> {
  const { pod } = inp;
  const content =
    pod.spec.hostNetwork === true
      ? hostNetworkHostsContent(await readFile(inp.nodeHostsPath ?? '/etc/hosts', 'utf8'), pod)
      : (() => {
          const { hostname, domain } = podHostnameAndDomain(pod, inp.clusterDomain);
          return managedHostsContent(inp.podIPs, hostname, domain, pod);
        })();
  await mkdirUnder(inp.rootDir, ['pods', pod.metadata.uid], 0o750);
  const path = joinUnder(inp.rootDir, 'pods', pod.metadata.uid, 'etc-hosts');
  await writeFileAtomic(path, content, { mode: 0o644 });
  return path;
}
