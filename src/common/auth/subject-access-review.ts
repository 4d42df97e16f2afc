// The spec of a SubjectAccessReview (authorization/v1) built from a request's attributes: what the
// agent's webhook authorizer sends to its API server and what plat-apiserver's webhook authorizer
// sends to its webhook (and shows its CEL match conditions as `request`). Every field is present,
// as the reference's match conditions see them (empty uid, empty extra).
import type { UserInfo } from './user.js';

export interface ReviewedAttributes {
  readonly user: UserInfo;
  readonly verb: string;
  /** False for a non-resource URL (then only `path` and `verb` count). Default true. */
  readonly isResourceRequest?: boolean;
  readonly path: string;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
}

export interface SarResourceAttributes {
  namespace: string;
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  name: string;
}

export interface SarSpecV1 {
  resourceAttributes?: SarResourceAttributes;
  nonResourceAttributes?: { path: string; verb: string };
  user: string;
  groups: string[];
  extra: Record<string, string[]>;
  uid: string;
}

export function sarSpecV1(a: ReviewedAttributes): SarSpecV1 {
  const spec: SarSpecV1 = {
    user: a.user.username,
    groups: [...a.user.groups],
    extra: Object.fromEntries(Object.entries(a.user.extra ?? {}).map(([k, v]) => [k, [...v]])),
    uid: a.user.uid ?? '',
  };
  if (a.isResourceRequest === false) {
    spec.nonResourceAttributes = { path: a.path, verb: a.verb };
  } else {
    spec.resourceAttributes = {
      namespace: a.namespace,
      verb: a.verb,
      group: a.apiGroup,
      version: a.apiVersion,
      resource: a.resource,
      subresource: a.subresource,
      name: a.name,
    };
  }
  return spec;
}
