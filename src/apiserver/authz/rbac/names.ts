// The one place RBAC names are derived from the platform domain: the API group, the labels and
// annotations of the bootstrap policy, and the translation of the reference's own names (read
// from a real 1.32 apiserver) into ours, through the naming profile (src/common/names.ts).
import { REFERENCE_NAMES, type Names } from '../../../common/names.js';

export interface RbacNames {
  /** `rbac.authorization.<domain>` */
  readonly group: string;
  /** `authorization.<domain>` (SubjectAccessReview and friends). */
  readonly authorizationGroup: string;
  /** `authentication.<domain>` (TokenReview, SelfSubjectReview; impersonated uids and extras). */
  readonly authenticationGroup: string;
  /**
   * `rbac.authorization.<domain>/autoupdate`: "false" keeps a bootstrap object as its user left it.
   */
  readonly autoupdateAnnotation: string;
  /** Rewrites a name the reference policy uses (group, label, signer, role name) into ours. */
  translate(referenceName: string): string;
}

/** The reference's signers and namespaces, and what they are called under the profile. */
function exactNames(n: Names): ReadonlyMap<string, string> {
  const ref = REFERENCE_NAMES;
  return new Map([
    [ref.signers.agentClient, n.signers.agentClient],
    [ref.signers.apiClient, n.signers.apiClient],
    [ref.signers.agentServing, n.signers.agentServing],
    [ref.signers.legacyUnknown, n.signers.legacyUnknown],
    [ref.namespaces.system, n.namespaces.system],
    [ref.namespaces.public, n.namespaces.public],
    [ref.namespaces.nodeLease, n.namespaces.nodeLease],
  ]);
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A reference group domain (`x.k8s.io`) or label domain (`kubernetes.io/`) inside a name. */
const REFERENCE_DOMAIN = new RegExp(
  `(^|[./:])(${escape(REFERENCE_NAMES.groupDomain)}|` +
    `${escape(REFERENCE_NAMES.labelDomain)})(?=$|[/:])`,
  'g',
);

/** RBAC's names under a profile. */
export function rbacNames(n: Names): RbacNames {
  const exact = exactNames(n);
  const g = n.groupDomain;
  return {
    group: `rbac.authorization.${g}`,
    authorizationGroup: n.groups.authorization,
    authenticationGroup: n.groups.authentication,
    autoupdateAnnotation: `rbac.authorization.${g}/autoupdate`,
    translate: (name) => {
      const known = exact.get(name);
      if (known !== undefined) return known;
      if (n.profile === 'kubernetes') return name;
      // `x.k8s.io` groups become the group domain, `kubernetes.io/` label prefixes the label
      // domain.
      return name.replace(
        REFERENCE_DOMAIN,
        (_m, pre: string, d: string) =>
          `${pre}${d === REFERENCE_NAMES.groupDomain ? g : n.labelDomain}`,
      );
    },
  };
}
