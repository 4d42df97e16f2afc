// The descriptions the OpenAPI documents carry (what `kubectl explain` prints under DESCRIPTION):
// one short sentence of our own for each kind served, in the profile's names. Fields and the
// types inside a kind carry none: explain shows their names, types and formats, which say what
// they hold.

import type { Names } from '../../common/names.js';

/** The description of a definition (`io.k8s.api.core.v1.Pod`) under a profile, or undefined. */
export type Describe = (definition: string) => string | undefined;

/** Our sentence for each served kind, by definition name. */
function kindSentences(n: Names): Readonly<Record<string, string>> {
  const core = 'io.k8s.api.core.v1';
  const rbac = 'io.k8s.api.rbac.v1';
  const authz = 'io.k8s.api.authorization.v1';
  const authn = 'io.k8s.api.authentication.v1';
  return {
    [`${core}.Pod`]: 'A group of containers run together on one node, with their shared volumes.',
    [`${core}.Node`]: 'A machine that runs pods, with the status its node agent reports.',
    [`${core}.Namespace`]: 'A scope for the names of namespaced objects.',
    [`${core}.Secret`]: 'Named pieces of confidential data, stored encrypted when so configured.',
    [`${core}.ConfigMap`]: 'Named pieces of configuration data, text or binary.',
    [`${core}.ServiceAccount`]:
      'An identity for processes in pods, with the tokens the server issues for it.',
    [`${core}.Service`]: 'A stable virtual address and ports in front of a set of pods.',
    [`${core}.Endpoints`]: 'The addresses and ports that back a service.',
    [`${core}.Event`]: 'A report of something that happened to an object, counted when repeated.',
    ['io.k8s.api.coordination.v1.Lease']: 'A lease one holder renews to show it is alive.',
    ['io.k8s.api.certificates.v1.CertificateSigningRequest']:
      `A request for an x509 certificate from a signer (such as ${n.signers.agentClient}), ` +
      'approved or denied, then issued.',
    [`${rbac}.Role`]: 'Permissions within one namespace: a list of rules.',
    [`${rbac}.ClusterRole`]: 'Permissions across the cluster: a list of rules, or an aggregation.',
    [`${rbac}.RoleBinding`]: 'Grants a role or cluster role to subjects within one namespace.',
    [`${rbac}.ClusterRoleBinding`]: 'Grants a cluster role to subjects across the cluster.',
    [`${authn}.TokenReview`]: 'Asks the server who a bearer token authenticates as.',
    [`${authn}.SelfSubjectReview`]: 'Asks the server who the requester is.',
    [`${authz}.SubjectAccessReview`]: 'Asks the server whether a user may perform an action.',
    [`${authz}.LocalSubjectAccessReview`]:
      'Asks the server whether a user may perform an action in one namespace.',
    [`${authz}.SelfSubjectAccessReview`]: 'Asks the server whether the requester may act.',
    [`${authz}.SelfSubjectRulesReview`]:
      'Asks the server what the requester may do in a namespace.',
  };
}

/** The descriptions served under a profile's names. */
export function describerFor(names: Names): Describe {
  const sentences = kindSentences(names);
  return (definition) => (Object.hasOwn(sentences, definition) ? sentences[definition] : undefined);
}
