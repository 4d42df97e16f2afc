// plat-apiserver's reconciled bootstrap policy, as served by GET on its RBAC endpoints, against the
// reference's own (test/fixtures/reference-1.32/rbac-*.json, copied unchanged from the shared
// reference/kubernetes-1.32: what a real kube-apiserver v1.32.13 set up by kubeadm serves, with the
// three node-bootstrap bindings kubeadm adds). Every ClusterRole, ClusterRoleBinding, Role and
// RoleBinding there (a superset of the roles named in the spec: cluster-admin, admin, edit, view,
// system:basic-user, system:discovery, system:public-info-viewer, system:node,
// system:node-bootstrapper, the certificatesigningrequests nodeclient/selfnodeclient roles and
// their kubeadm bindings for system:bootstrappers and system:nodes, the system:certificates.k8s.io
// approver roles) must be served with the same rules (as sets), labels, annotations, aggregation
// selectors, roleRef and subjects (as sets). The aggregated roles (admin, edit, view) have no rules
// in the reference's data (the controller fills them): theirs must be the union of the rules of the
// reference's roles their selectors pick. Under the kubernetes profile the names are the
// reference's; under the platform profile (platform.io) they are mapped as the spec writes them
// (below).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { join } from 'node:path';
import { repoRoot, startApiServer, type StartedApiServer } from '../../helpers/apiserver.js';

type Obj = Record<string, unknown>;
const items = (file: string): Obj[] =>
  (
    JSON.parse(
      readFileSync(join(repoRoot(), 'test', 'fixtures', 'reference-1.32', file), 'utf8'),
    ) as { items: Obj[] }
  ).items;
const reference = [
  ...items('rbac-clusterroles.json'),
  ...items('rbac-clusterrolebindings.json'),
  ...items('rbac-roles-and-bindings.json'),
];

const servers: StartedApiServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

/** The spec's names for the reference's under the platform profile with domain `d`. */
function platformName(d: string): (s: string) => string {
  const signers: Record<string, string> = {
    'kubernetes.io/kube-apiserver-client-kubelet': `${d}/plat-apiserver-client-platlet`,
    'kubernetes.io/kube-apiserver-client': `${d}/plat-apiserver-client`,
    'kubernetes.io/kubelet-serving': `${d}/platlet-serving`,
    'kubernetes.io/legacy-unknown': `${d}/legacy-unknown`,
    'kube-system': 'plat-system',
    'kube-public': 'plat-public',
    'kube-node-lease': 'plat-node-lease',
  };
  return (s) =>
    signers[s] ??
    s.replace(/(^|[./:])(k8s\.io|kubernetes\.io)(?=$|[/:])/g, (_m, pre: string) => `${pre}${d}`);
}

function mapDeep(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => mapDeep(x, f));
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v as Obj).map(([k, x]) => [f(k), mapDeep(x, f)]));
  return v;
}

const sortedArrays = (v: unknown): unknown =>
  Array.isArray(v)
    ? [...v].map(sortedArrays).sort()
    : v !== null && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v as Obj)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, x]) => [k, sortedArrays(x)]),
        )
      : v;
/** Rules (or subjects) as a sorted set of canonical JSON strings. */
const asSet = (list: unknown): string[] =>
  [
    ...new Set((Array.isArray(list) ? list : []).map((r) => JSON.stringify(sortedArrays(r)))),
  ].sort();
const meta = (o: Obj): Obj => (o['metadata'] ?? {}) as Obj;
const annotations = (o: Obj): Obj =>
  Object.fromEntries(
    Object.entries((meta(o)['annotations'] ?? {}) as Obj).filter(
      ([k]) => !k.endsWith('/last-applied-configuration'),
    ),
  );

function pathOf(o: Obj, rbacGroup: string): string {
  const plural = `${String(o['kind']).toLowerCase()}s`;
  const ns = meta(o)['namespace'];
  return `/apis/${rbacGroup}/v1/${typeof ns === 'string' ? `namespaces/${ns}/` : ''}${plural}/${String(meta(o)['name'])}`;
}

/** The rules an aggregated role must have: those of the reference roles its selectors pick (an
 * aggregated role picked, e.g. view by edit's selector, brings its own aggregated rules). */
function aggregatedRules(
  role: Obj,
  all: readonly Obj[],
  seen: Set<unknown> = new Set([role]),
): unknown[] {
  const selectors = (
    (role['aggregationRule'] as Obj)['clusterRoleSelectors'] as {
      matchLabels: Record<string, string>;
    }[]
  ).map((s) => s.matchLabels);
  const picked = all.filter(
    (o) =>
      o['kind'] === 'ClusterRole' &&
      !seen.has(o) &&
      selectors.some((m) =>
        Object.entries(m).every(([k, v]) => ((meta(o)['labels'] ?? {}) as Obj)[k] === v),
      ),
  );
  for (const o of picked) seen.add(o);
  return picked.flatMap((o) =>
    o['aggregationRule'] !== undefined
      ? aggregatedRules(o, all, seen)
      : Array.isArray(o['rules'])
        ? o['rules']
        : [],
  );
}

async function compare(
  api: StartedApiServer,
  rbacGroup: string,
  expectedObjects: readonly Obj[],
): Promise<string[]> {
  const diffs: string[] = [];
  for (const want of expectedObjects) {
    const what = `${String(want['kind'])} ${String(meta(want)['namespace'] ?? '')}/${String(meta(want)['name'])}`;
    const r = await api.request('GET', pathOf(want, rbacGroup));
    if (r.status !== 200) {
      diffs.push(`${what} | GET ${r.status}`);
      continue;
    }
    const got = r.json ?? {};
    const check = (field: string, a: unknown, b: unknown): void => {
      if (JSON.stringify(sortedArrays(a)) !== JSON.stringify(sortedArrays(b)))
        diffs.push(
          `${what} | ${field}: served ${JSON.stringify(a)}, reference ${JSON.stringify(b)}`,
        );
    };
    check('labels', meta(got)['labels'] ?? {}, meta(want)['labels'] ?? {});
    check('annotations', annotations(got), annotations(want));
    if (want['kind'] === 'ClusterRole' || want['kind'] === 'Role') {
      const wantRules =
        want['aggregationRule'] !== undefined
          ? aggregatedRules(want, expectedObjects)
          : want['rules'];
      check('rules', asSet(got['rules']), asSet(wantRules));
      check('aggregationRule', got['aggregationRule'] ?? null, want['aggregationRule'] ?? null);
    } else {
      check('roleRef', got['roleRef'], want['roleRef']);
      check('subjects', asSet(got['subjects']), asSet(want['subjects']));
    }
  }
  return diffs;
}

const ISSUE_ROLES = [
  'cluster-admin',
  'admin',
  'edit',
  'view',
  'system:basic-user',
  'system:discovery',
  'system:public-info-viewer',
  'system:node',
  'system:node-bootstrapper',
  'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
  'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
  'system:certificates.k8s.io:kube-apiserver-client-approver',
  'system:certificates.k8s.io:kube-apiserver-client-kubelet-approver',
  'system:certificates.k8s.io:kubelet-serving-approver',
  'system:certificates.k8s.io:legacy-unknown-approver',
];
const ISSUE_BINDINGS = [
  'kubeadm:kubelet-bootstrap',
  'kubeadm:node-autoapprove-bootstrap',
  'kubeadm:node-autoapprove-certificate-rotation',
  'system:node',
  'system:basic-user',
  'system:discovery',
  'system:public-info-viewer',
  'cluster-admin',
];

test('the reference data holds every role and binding the issue lists (so the comparison below covers them)', () => {
  const names = (kind: string): string[] =>
    reference.filter((o) => o['kind'] === kind).map((o) => String(meta(o)['name']));
  for (const n of ISSUE_ROLES) assert.ok(names('ClusterRole').includes(n), n);
  for (const n of ISSUE_BINDINGS) assert.ok(names('ClusterRoleBinding').includes(n), n);
  assert.equal(
    reference.length,
    65 + 49 + 16,
    'ClusterRoles, ClusterRoleBindings, Roles and RoleBindings in the reference data',
  );
});

test("kubernetes profile: every served bootstrap role and binding equals the reference's (rules as sets)", async () => {
  const api = await startApiServer({
    platformDomain: 'k8s.io',
    args: ['--platform-profile=kubernetes'],
  });
  servers.push(api);
  const diffs = await compare(api, 'rbac.authorization.k8s.io', reference);
  process.stdout.write(
    `# bootstrap policy (kubernetes profile): ${reference.length} reference objects, ${reference.length - new Set(diffs.map((x) => x.split(' | ')[0])).size} served equal\n`,
  );
  assert.deepEqual(diffs, []);
});

test("platform profile (platform.io): the same policy under the spec's names", async () => {
  const d = 'platform.io';
  const api = await startApiServer({ platformDomain: d });
  servers.push(api);
  const mapped = reference.map((o) => mapDeep(o, platformName(d)) as Obj);
  // spot checks of the mapping itself, so a wrong mapping cannot make both sides agree
  const rotation = mapped.find(
    (o) => meta(o)['name'] === 'kubeadm:node-autoapprove-certificate-rotation',
  );
  assert.equal(
    (rotation?.['roleRef'] as Obj)['name'],
    `system:certificates.${d}:certificatesigningrequests:selfnodeclient`,
  );
  const approver = mapped.find(
    (o) => meta(o)['name'] === `system:certificates.${d}:kube-apiserver-client-kubelet-approver`,
  );
  assert.deepEqual((approver?.['rules'] as Obj[])[0], {
    apiGroups: [`certificates.${d}`],
    resourceNames: [`${d}/plat-apiserver-client-platlet`],
    resources: ['signers'],
    verbs: ['approve'],
  });
  const diffs = await compare(api, `rbac.authorization.${d}`, mapped);
  process.stdout.write(
    `# bootstrap policy (platform profile): ${mapped.length} reference objects, ${mapped.length - new Set(diffs.map((x) => x.split(' | ')[0])).size} served equal\n`,
  );
  assert.deepEqual(diffs, []);
});
