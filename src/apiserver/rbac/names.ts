// The one place RBAC names are derived from the platform domain: the API group, the labels and
// annotations of the bootstrap policy, and the translation of the reference's own names (read
// from a real 1.32 apiserver) into ours. A naming profile changes these functions only.

export interface RbacNames {
  /** `rbac.authorization.<domain>` */
  readonly group: string;
  /** `authorization.<domain>` (SubjectAccessReview and friends). */
  readonly authorizationGroup: string;
  /** `authentication.<domain>` (TokenReview, SelfSubjectReview; impersonated uids and extras). */
  readonly authenticationGroup: string;
  /** `rbac.authorization.<domain>/autoupdate`: "false" keeps a bootstrap object as its user left it. */
  readonly autoupdateAnnotation: string;
  /** Rewrites a name the reference policy uses (group, label, signer, role name) into ours. */
  translate(referenceName: string): string;
}

/** The reference's signers and the names our signers have (src/apiserver/csr/signer.ts). */
function signerNames(domain: string): ReadonlyMap<string, string> {
  return new Map([
    ['kubernetes.io/kube-apiserver-client-kubelet', `${domain}/plat-apiserver-client-platlet`],
    ['kubernetes.io/kube-apiserver-client', `${domain}/plat-apiserver-client`],
    ['kubernetes.io/kubelet-serving', `${domain}/platlet-serving`],
    ['kubernetes.io/legacy-unknown', `${domain}/legacy-unknown`],
  ]);
}

export function rbacNames(platformDomain: string): RbacNames {
  const signers = signerNames(platformDomain);
  return {
    group: `rbac.authorization.${platformDomain}`,
    authorizationGroup: `authorization.${platformDomain}`,
    authenticationGroup: `authentication.${platformDomain}`,
    autoupdateAnnotation: `rbac.authorization.${platformDomain}/autoupdate`,
    translate: (name) => {
      const signer = signers.get(name);
      if (signer !== undefined) return signer;
      // `x.k8s.io` groups and `kubernetes.io/` label prefixes both become the platform domain.
      return name.replace(/(^|[./:])(k8s\.io|kubernetes\.io)(?=$|[/:])/g, (_m, pre: string) => `${pre}${platformDomain}`);
    },
  };
}
