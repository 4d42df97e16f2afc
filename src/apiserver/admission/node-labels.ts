// Which node labels a node may set on itself, as the reference's NodeRestriction and kubelet label
// list (k8s.io/kubelet/pkg/apis/well_known_labels.go), with `kubernetes.io` written as the platform
// domain and `kubelet` as `platlet` (both configurable for the kubernetes naming): labels in the
// domain's namespace (the domain or a subdomain of it) are the node's only when well known
// (hostname, os, arch, zone, region, instance type) or under `platlet.<domain>/` or
// `node.<domain>/`; `node-restriction.<domain>/` labels never (so `node-role.<domain>/` labels are
// refused too).

export interface NodeLabelPolicy {
  /** Sorted keys of `modified` a node may not add, change or remove. */
  forbidden(modified: Iterable<string>): string[];
}

function labelNamespace(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

const within = (ns: string, domain: string): boolean => ns === domain || ns.endsWith(`.${domain}`);

export interface NodeLabelNames {
  /** The word for the node agent in label namespaces: `platlet` (platform naming) or `kubelet`. */
  readonly agentWord?: string;
  /**
   * Further domains whose labels are reserved the same way (the reference: k8s.io beside
   * kubernetes.io).
   */
  readonly alsoReserved?: readonly string[];
}

export function nodeLabelPolicy(domain: string, names: NodeLabelNames = {}): NodeLabelPolicy {
  const reserved = [domain, ...(names.alsoReserved ?? [])];
  const wellKnown = new Set([
    `${domain}/hostname`,
    `topology.${domain}/zone`,
    `topology.${domain}/region`,
    `failure-domain.beta.${domain}/zone`,
    `failure-domain.beta.${domain}/region`,
    `beta.${domain}/instance-type`,
    `node.${domain}/instance-type`,
    `${domain}/os`,
    `${domain}/arch`,
    `beta.${domain}/os`,
    `beta.${domain}/arch`,
  ]);
  const nodeNamespaces = [`${names.agentWord ?? 'platlet'}.${domain}`, `node.${domain}`];
  const isNodeLabel = (key: string): boolean =>
    wellKnown.has(key) || nodeNamespaces.some((ns) => within(labelNamespace(key), ns));
  return {
    forbidden(modified) {
      const out = new Set<string>();
      for (const key of modified) {
        const ns = labelNamespace(key);
        if (within(ns, `node-restriction.${domain}`)) out.add(key);
        if (reserved.some((d) => within(ns, d)) && !isNodeLabel(key)) out.add(key);
      }
      return [...out].sort();
    },
  };
}

/** Keys whose value differs between two label maps (added, removed or changed). */
export function modifiedLabels(
  a: Readonly<Record<string, unknown>>,
  b: Readonly<Record<string, unknown>>,
): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(a)) if (!(k in b) || b[k] !== v) out.add(k);
  for (const [k, v] of Object.entries(b)) if (!(k in a) || a[k] !== v) out.add(k);
  return out;
}
