// The review kinds (authentication/v1 and authorization/v1): asked and answered at once, never
// stored.
import { fieldSelectorRequirement, labelSelectorRequirement, topLevel } from './meta.js';
import { arr, atomicList, bool, map, obj, str, type ObjOptions, type Schema } from './types.js';

const AUTHN_PKG = 'io.k8s.api.authentication.v1';
const AUTHZ_PKG = 'io.k8s.api.authorization.v1';
const authn = (name: string, fields: Record<string, Schema>): Schema =>
  obj(name, fields, { pkg: AUTHN_PKG });
const authz = (
  name: string,
  fields: Record<string, Schema>,
  o: Omit<ObjOptions, 'pkg'> = {},
): Schema => obj(name, fields, { pkg: AUTHZ_PKG, ...o });

const userInfo = authn('v1.UserInfo', {
  username: str,
  uid: str,
  groups: atomicList(str),
  extra: map(arr(str)),
});

const tokenReview = topLevel(
  'v1.TokenReview',
  {
    spec: authn('v1.TokenReviewSpec', { token: str, audiences: atomicList(str) }),
    status: authn('v1.TokenReviewStatus', {
      authenticated: bool,
      user: userInfo,
      audiences: atomicList(str),
      error: str,
    }),
  },
  { pkg: AUTHN_PKG, required: ['spec'] },
);

const selfSubjectReview = topLevel(
  'v1.SelfSubjectReview',
  { status: authn('v1.SelfSubjectReviewStatus', { userInfo }) },
  { pkg: AUTHN_PKG },
);

const resourceAttributes = authz('v1.ResourceAttributes', {
  namespace: str,
  verb: str,
  group: str,
  version: str,
  resource: str,
  subresource: str,
  name: str,
  fieldSelector: authz('v1.FieldSelectorAttributes', {
    rawSelector: str,
    requirements: atomicList(fieldSelectorRequirement),
  }),
  labelSelector: authz('v1.LabelSelectorAttributes', {
    rawSelector: str,
    requirements: atomicList(labelSelectorRequirement),
  }),
});
const nonResourceAttributes = authz('v1.NonResourceAttributes', { path: str, verb: str });

const accessStatus = authz(
  'v1.SubjectAccessReviewStatus',
  { allowed: bool, denied: bool, reason: str, evaluationError: str },
  { required: ['allowed'] },
);

const subjectAccessReviewSpec = authz('v1.SubjectAccessReviewSpec', {
  resourceAttributes,
  nonResourceAttributes,
  user: str,
  groups: atomicList(str),
  extra: map(arr(str)),
  uid: str,
});

const subjectAccessReview = topLevel(
  'v1.SubjectAccessReview',
  { spec: subjectAccessReviewSpec, status: accessStatus },
  { pkg: AUTHZ_PKG, required: ['spec'] },
);

/**
 * The namespaced form (POST .../namespaces/{namespace}/localsubjectaccessreviews): the same spec
 * and status.
 */
const localSubjectAccessReview = topLevel(
  'v1.LocalSubjectAccessReview',
  { spec: subjectAccessReviewSpec, status: accessStatus },
  { pkg: AUTHZ_PKG, required: ['spec'] },
);

const selfSubjectAccessReview = topLevel(
  'v1.SelfSubjectAccessReview',
  {
    spec: authz('v1.SelfSubjectAccessReviewSpec', { resourceAttributes, nonResourceAttributes }),
    status: accessStatus,
  },
  { pkg: AUTHZ_PKG, required: ['spec'] },
);

const rule = (name: string, fields: Record<string, Schema>): Schema =>
  authz(name, { verbs: atomicList(str), ...fields }, { required: ['verbs'] });

const selfSubjectRulesReview = topLevel(
  'v1.SelfSubjectRulesReview',
  {
    spec: authz('v1.SelfSubjectRulesReviewSpec', { namespace: str }),
    status: authz(
      'v1.SubjectRulesReviewStatus',
      {
        resourceRules: atomicList(
          rule('v1.ResourceRule', {
            apiGroups: atomicList(str),
            resources: atomicList(str),
            resourceNames: atomicList(str),
          }),
        ),
        nonResourceRules: atomicList(
          rule('v1.NonResourceRule', { nonResourceURLs: atomicList(str) }),
        ),
        incomplete: bool,
        evaluationError: str,
      },
      { required: ['resourceRules', 'nonResourceRules', 'incomplete'] },
    ),
  },
  { pkg: AUTHZ_PKG, required: ['spec'] },
);

export const reviewKinds: readonly (readonly [string, Schema])[] = [
  ['TokenReview', tokenReview],
  ['SelfSubjectReview', selfSubjectReview],
  ['SubjectAccessReview', subjectAccessReview],
  ['LocalSubjectAccessReview', localSubjectAccessReview],
  ['SelfSubjectAccessReview', selfSubjectAccessReview],
  ['SelfSubjectRulesReview', selfSubjectRulesReview],
];
