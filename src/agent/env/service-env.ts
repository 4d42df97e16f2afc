// The service environment variables the reference's kubelet gives every container
// (getServiceEnvVarMap over envvars.FromServices): for each Service of the pod's namespace with a
// cluster IP (enableServiceLinks), and always for the `kubernetes` Service of the `default`
// namespace, `<NAME>_SERVICE_HOST`, `<NAME>_SERVICE_PORT` (the first port),
// `<NAME>_SERVICE_PORT_<PORTNAME>` (each named port) and the Docker link variables `<NAME>_PORT`
// (the first port) and `<NAME>_PORT_<port>_<PROTO>` with its `_PROTO`, `_PORT` and `_ADDR`.
// NAME is the Service's name upper-cased with `-` as `_`.

/** What the variables read of a Service. */
export interface ServiceInfo {
  namespace: string;
  name: string;
  clusterIP: string;
  ports: readonly { name: string; port: number; protocol: string }[];
}

const MASTER_SERVICES = new Set(['kubernetes']);

/** The reference's IsServiceIPSet: a cluster IP that is neither empty nor None. */
function hasClusterIP(s: ServiceInfo): boolean {
  return s.clusterIP !== '' && s.clusterIP !== 'None';
}

function envName(name: string): string {
  return name.replaceAll('-', '_').toUpperCase();
}

/** net.JoinHostPort: an IPv6 address in brackets. */
function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function linkVariables(s: ServiceInfo, out: Map<string, string>): void {
  const prefix = envName(s.name);
  s.ports.forEach((p, i) => {
    const protocol = p.protocol === '' ? 'TCP' : p.protocol;
    const url = `${protocol.toLowerCase()}://${hostPort(s.clusterIP, p.port)}`;
    if (i === 0) out.set(`${prefix}_PORT`, url);
    const portPrefix = `${prefix}_PORT_${p.port}_${protocol.toUpperCase()}`;
    out.set(portPrefix, url);
    out.set(`${portPrefix}_PROTO`, protocol.toLowerCase());
    out.set(`${portPrefix}_PORT`, String(p.port));
    out.set(`${portPrefix}_ADDR`, s.clusterIP);
  });
}

/** envvars.FromServices: the variables of each Service, in the order given. */
export function fromServices(services: readonly ServiceInfo[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of services) {
    const first = s.ports[0];
    // a Service with a cluster IP has a port (validation); one without is skipped, not a crash
    if (!hasClusterIP(s) || first === undefined) continue;
    const name = envName(s.name);
    out.set(`${name}_SERVICE_HOST`, s.clusterIP);
    out.set(`${name}_SERVICE_PORT`, String(first.port));
    for (const p of s.ports)
      if (p.name !== '') out.set(`${name}_SERVICE_PORT_${envName(p.name)}`, String(p.port));
    linkVariables(s, out);
  }
  return out;
}

/**
 * The service variables of a pod in `namespace`: its namespace's Services when `enableLinks`,
 * and `default/kubernetes` always; a Service of the pod's namespace wins over a master Service
 * of the same name. Services are taken in name order (the reference's order is a Go map's).
 */
export function serviceEnv(
  services: readonly ServiceInfo[],
  namespace: string,
  enableLinks: boolean,
): Map<string, string> {
  const byName = new Map<string, ServiceInfo>();
  for (const s of services) {
    if (!hasClusterIP(s)) continue;
    if (s.namespace === 'default' && MASTER_SERVICES.has(s.name)) {
      if (!byName.has(s.name)) byName.set(s.name, s);
    } else if (s.namespace === namespace && enableLinks) byName.set(s.name, s);
  }
  const chosen = [...byName.values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  return fromServices(chosen);
}
