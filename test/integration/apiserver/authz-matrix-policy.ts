// The reference's answers for the authorization matrix (authz-matrix.test.ts), written out from
// its documentation and bootstrap policy, not derived from this server's code:
// - kubernetes.io "Using RBAC Authorization", default roles and bindings, and the reference's
//   policy as read from a real v1.32 apiserver (../shared/reference/kubernetes-1.32/rbac-*.json):
//   cluster-admin → system:masters: everything;
//   (localsubjectaccessreviews are admin's, not view's: system:aggregate-to-admin)
//   view (aggregated system:aggregate-to-view): get/list/watch of configmaps, pods, pods/status,
//     events, namespaces, namespaces/status (no secrets, nodes, leases, CSRs, roles or bindings);
//   system:node-bootstrapper (kubeadm:kubelet-bootstrap → system:bootstrappers):
//     create/get/list/watch certificatesigningrequests;
//   system:basic-user → system:authenticated: create self{subjectaccess,subjectrules,subject}reviews;
//   system:discovery → system:authenticated: GET /api, /api/*, /apis, /apis/*, /openapi, /openapi/*,
//     /healthz, /livez, /readyz, /version;
//   system:public-info-viewer → everyone: GET /healthz, /livez, /readyz, /version.
// - kubernetes.io "Using Node Authorization" (Node authorizer with AuthorizeNodeWithSelectors, beta
//   and on in 1.32) and "Admission controllers: NodeRestriction", with the static node rules of
//   the `system:node` ClusterRole (whose binding has no subjects): a node `system:node:<name>` in
//   system:nodes may
//     nodes: get/list/watch only its own Node (by name, or a metadata.name field selector);
//       create/update/patch and status update/patch (NodeRestriction: only its own); never
//       delete, never read the status subresource (no rule names get on nodes/status);
//     pods: get of pods bound to it; list/watch with spec.nodeName=<itself> (or a metadata.name
//       selector naming a pod bound to it); create (NodeRestriction: mirror pods bound to it,
//       owned by its Node) and delete (NodeRestriction: pods bound to it); pods/status
//       update/patch (NodeRestriction: pods bound to it); nothing else;
//     leases: get/create/update/patch/delete of the lease named after it in the node-lease
//       namespace only (no list/watch);
//     secrets, configmaps: get (or list/watch naming one by metadata.name) of those a pod bound to
//       it refers to; never write;
//     certificatesigningrequests: create/get/list/watch (the static rule: every CSR, not only its
//       own), never status, approval, update, patch or delete;
//     events: create/update/patch only; tokenreviews, subjectaccessreviews,
//     localsubjectaccessreviews: create;
//     as an authenticated user: the self reviews and the discovery paths.

export type Identity =
  'admin' | 'viewer' | 'bootstrap' | 'plain' | 'anonymous' | 'node-a' | 'node-b';
export const IDENTITIES: readonly Identity[] = [
  'admin',
  'viewer',
  'bootstrap',
  'plain',
  'anonymous',
  'node-a',
  'node-b',
];

/** One request in the matrix, described by what the policy looks at. */
export interface MatrixAction {
  /** `verb resource[/sub] [target]` or `GET <path>`: how the matrix names it. */
  readonly key: string;
  /** The authorization verb (or GET for a non-resource path). */
  readonly verb: string;
  /** `resource` or `resource/subresource`; the path for non-resource requests. */
  readonly resource: string;
  /** The node the object (or the object in the body) relates to: the Node itself, its lease, a pod
   * bound to it, a secret or config map such a pod refers to; for list/watch, the node a selector
   * confines the request to. */
  readonly owner?: 'node-a' | 'node-b';
  /** A pod body that is a mirror pod (annotation, owner reference to its Node). */
  readonly mirror?: boolean;
  /** A lease outside the node-lease namespace. */
  readonly otherNamespace?: boolean;
}

const READ = ['get', 'list', 'watch'];
const PUBLIC = ['/healthz', '/livez', '/readyz', '/version'];
export const DISCOVERY_PATHS = [
  ...PUBLIC,
  '/api',
  '/api/v1',
  '/apis',
  '/apis/rbac.authorization.k8s.io/v1',
  '/openapi/v3',
];
const SELF_REVIEWS = ['selfsubjectaccessreviews', 'selfsubjectrulesreviews', 'selfsubjectreviews'];

/** What an authenticated user gets from system:basic-user and system:discovery. */
function authenticated(a: MatrixAction): boolean {
  if (a.verb === 'GET') return DISCOVERY_PATHS.includes(a.resource);
  return a.verb === 'create' && SELF_REVIEWS.includes(a.resource);
}

function viewer(a: MatrixAction): boolean {
  if (['configmaps', 'pods', 'events', 'namespaces'].includes(a.resource))
    return READ.includes(a.verb);
  return a.verb === 'get' && ['pods/status', 'namespaces/status'].includes(a.resource);
}

function node(self: 'node-a' | 'node-b', a: MatrixAction): boolean {
  const own = a.owner === self;
  const v = a.verb;
  switch (a.resource) {
    case 'nodes':
      return ['get', 'list', 'watch', 'create', 'update', 'patch'].includes(v) && own;
    case 'nodes/status':
    case 'pods/status':
      return ['update', 'patch'].includes(v) && own;
    case 'pods':
      if (v === 'create') return own && a.mirror === true;
      return ['get', 'list', 'watch', 'delete'].includes(v) && own;
    case 'leases':
      return (
        ['get', 'create', 'update', 'patch', 'delete'].includes(v) &&
        own &&
        a.otherNamespace !== true
      );
    case 'secrets':
    case 'configmaps':
      return READ.includes(v) && own;
    case 'certificatesigningrequests':
      return ['create', ...READ].includes(v);
    case 'events':
      return ['create', 'update', 'patch'].includes(v);
    case 'tokenreviews':
    case 'subjectaccessreviews':
    case 'localsubjectaccessreviews':
      return v === 'create';
    default:
      return false;
  }
}

/** The reference's answer: true when the identity may do it. */
export function expected(who: Identity, a: MatrixAction): boolean {
  switch (who) {
    case 'admin':
      return true;
    case 'anonymous':
      return a.verb === 'GET' && PUBLIC.includes(a.resource);
    case 'viewer':
      return authenticated(a) || viewer(a);
    case 'bootstrap':
      return (
        authenticated(a) ||
        (a.resource === 'certificatesigningrequests' && ['create', ...READ].includes(a.verb))
      );
    case 'plain':
      return authenticated(a);
    case 'node-a':
    case 'node-b':
      return authenticated(a) || node(who, a);
  }
}
