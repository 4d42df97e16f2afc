// A SubjectAccessReview built from a request's attributes, its spec and its request body: what the
// agent's webhook authorizer sends to its API server and what plat-apiserver's webhook authorizer
// sends to its webhook (whose CEL match conditions see the v1 spec as `request`). Every field of
// the spec is present, as the reference's match conditions see them (empty uid, empty extra).
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
  /** Parsed selectors of a list/watch (AuthorizeWithSelectors): sent as requirements, never raw. */
  readonly fieldSelector?: readonly {
    readonly field: string;
    readonly op: '=' | '!=';
    readonly value: string;
  }[];
  readonly labelSelector?: readonly SelectorRequirement[];
}

/** metav1.FieldSelectorRequirement / LabelSelectorRequirement. */
export interface SelectorRequirement {
  readonly key: string;
  readonly operator: string;
  /** Absent when empty (Exists, DoesNotExist), as the reference serializes it. */
  readonly values?: readonly string[];
}

export interface SarResourceAttributes {
  namespace: string;
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  name: string;
  fieldSelector?: { requirements: SelectorRequirement[] };
  labelSelector?: { requirements: SelectorRequirement[] };
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
    // As the reference's webhook: `=` is In, `!=` NotIn, one value each; nothing when none.
    const fields = (a.fieldSelector ?? []).map((r) => ({
      key: r.field,
      operator: r.op === '=' ? 'In' : 'NotIn',
      values: [r.value],
    }));
    if (fields.length > 0) spec.resourceAttributes.fieldSelector = { requirements: fields };
    const labels = (a.labelSelector ?? []).map((r) => ({
      key: r.key,
      operator: r.operator,
      ...(r.values !== undefined && r.values.length > 0 ? { values: [...r.values] } : {}),
    }));
    if (labels.length > 0) spec.resourceAttributes.labelSelector = { requirements: labels };
  }
  return spec;
}

/** A v1beta1 spec: the reference's v1beta1 names the groups field `group`. */
export type SarSpecV1beta1 = Omit<SarSpecV1, 'groups'> & { group: string[] };

/** The request body of a SubjectAccessReview. */
export interface SarRequestBody {
  apiVersion: string;
  kind: 'SubjectAccessReview';
  spec: SarSpecV1 | SarSpecV1beta1;
}

/** The request body around `spec`, in `group` (authorization.{domain}) at `version`. */
export function sarRequestBody(
  spec: SarSpecV1,
  group: string,
  version: 'v1' | 'v1beta1' = 'v1',
): SarRequestBody {
  const apiVersion = `${group}/${version}`;
  if (version === 'v1') return { apiVersion, kind: 'SubjectAccessReview', spec };
  const { groups, ...rest } = spec;
  return { apiVersion, kind: 'SubjectAccessReview', spec: { ...rest, group: groups } };
}
