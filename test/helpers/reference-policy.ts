// The reference's kubeadm RBAC policy for node bootstrap (test/fixtures/reference-1.32/, read from
// a real v1.32 cluster), evaluated for SubjectAccessReviews a test webhook receives: a stand-in for
// plat-apiserver's own RBAC in tests of the Node authorizer and bootstrap tokens (with
// `--authorization-mode=Node,Webhook`). API groups `x.k8s.io` read as `x.<domain>`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './apiserver.js';
import type { SarAnswer, SarRequest } from './sar-webhook.js';

interface Rule {
  readonly apiGroups?: string[];
  readonly resources?: string[];
  readonly resourceNames?: string[];
  readonly verbs: string[];
  readonly nonResourceURLs?: string[];
}
interface Policy {
  readonly clusterRoles: { metadata: { name: string }; rules: Rule[] }[];
  readonly clusterRoleBindings: { metadata: { name: string }; roleRef: { name: string }; subjects: { kind: string; name: string }[] }[];
}

export function loadReferencePolicy(): Policy {
  return JSON.parse(readFileSync(join(repoRoot(), 'test', 'fixtures', 'reference-1.32', 'kubeadm-node-bootstrap-rbac.json'), 'utf8')) as Policy;
}

type Obj = Record<string, unknown>;
const s = (v: unknown): string => (typeof v === 'string' ? v : '');
const has = (list: readonly string[] | undefined, v: string): boolean => (list ?? []).includes('*') || (list ?? []).includes(v);

function ruleAllows(rule: Rule, spec: Obj, domain: string): boolean {
  const ra = spec['resourceAttributes'] as Obj | undefined;
  if (ra !== undefined) {
    const groups = (rule.apiGroups ?? []).map((g) => g.replace(/\.k8s\.io$/, `.${domain}`));
    const res = s(ra['subresource']) === '' ? s(ra['resource']) : `${s(ra['resource'])}/${s(ra['subresource'])}`;
    const names = rule.resourceNames ?? [];
    return has(rule.verbs, s(ra['verb'])) && has(groups, s(ra['group'])) && has(rule.resources, res) && (names.length === 0 || names.includes(s(ra['name'])));
  }
  const nr = (spec['nonResourceAttributes'] ?? {}) as Obj;
  const path = s(nr['path']);
  const urls = rule.nonResourceURLs ?? [];
  return has(rule.verbs, s(nr['verb'])) && urls.some((u) => u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))));
}

/** A SAR webhook handler answering as the reference's policy does (allowed, or no opinion). */
export function referencePolicyHandler(domain: string, policy: Policy = loadReferencePolicy()): (r: SarRequest) => SarAnswer {
  return (r) => {
    const spec = r.spec;
    const user = s(spec['user']);
    const groups = (Array.isArray(spec['groups']) ? spec['groups'] : Array.isArray(spec['group']) ? spec['group'] : []).map(s);
    for (const b of policy.clusterRoleBindings) {
      const bound = b.subjects.some((x) => (x.kind === 'Group' && groups.includes(x.name)) || (x.kind === 'User' && x.name === user));
      if (!bound) continue;
      const role = policy.clusterRoles.find((c) => c.metadata.name === b.roleRef.name);
      if (role?.rules.some((rule) => ruleAllows(rule, spec, domain)) === true) return { allowed: true, reason: `RBAC: allowed by ClusterRoleBinding "${b.metadata.name}"` };
    }
    return { allowed: false };
  };
}
