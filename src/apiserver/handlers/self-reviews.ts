// SelfSubjectAccessReview and SelfSubjectRulesReview (authorization group) and SelfSubjectReview
// (authentication group): what the requesting user may do, which rules they hold in a namespace,
// and who the server takes them for (`kubectl auth can-i [--list]`, `kubectl auth whoami`).

import type { Authorizer, PolicyRule, RuleResolver } from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import { invalid } from '../status.js';
import { validateReviewSelectors } from '../authz/review-selectors.js';
import { reviewAttributes } from './reviews.js';
import { recordOf } from '../../common/util/json-shape.js';

type Obj = Record<string, unknown>;

function s(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

const meta = { creationTimestamp: null };

export function selfSubjectReview(user: UserInfo, authenticationGroup: string): Obj {
  const userInfo: Obj = { username: user.username };
  if (user.uid !== undefined && user.uid !== '') userInfo['uid'] = user.uid;
  userInfo['groups'] = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0)
    userInfo['extra'] = user.extra;
  return {
    kind: 'SelfSubjectReview',
    apiVersion: `${authenticationGroup}/v1`,
    metadata: meta,
    status: { userInfo },
  };
}

export async function selfSubjectAccessReview(
  body: Obj,
  user: UserInfo,
  authz: Authorizer,
  authorizationGroup: string,
): Promise<Obj> {
  const spec = recordOf(body['spec']);
  const ra = spec['resourceAttributes'];
  const nra = spec['nonResourceAttributes'];
  const hasRa = ra !== undefined && ra !== null;
  if (hasRa === (nra !== undefined && nra !== null)) {
    throw invalid('SelfSubjectAccessReview', authorizationGroup, '', [
      {
        type: 'FieldValueInvalid',
        field: 'spec.resourceAttributes',
        value: hasRa ? ra : 'null',
        detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      },
    ]);
  }
  const selectorErrs = hasRa ? validateReviewSelectors(recordOf(ra)) : [];
  if (selectorErrs.length > 0)
    throw invalid('SelfSubjectAccessReview', authorizationGroup, '', selectorErrs);
  const attrs = reviewAttributes(user, ra, nra);
  const d = await authz.authorize(attrs);
  const status: Obj = { allowed: d.decision === 'allow' };
  if (d.decision === 'deny') status['denied'] = true;
  if (d.reason !== undefined && d.reason !== '') status['reason'] = d.reason;
  return {
    kind: 'SelfSubjectAccessReview',
    apiVersion: `${authorizationGroup}/v1`,
    metadata: meta,
    spec,
    status,
  };
}

function resourceRule(r: PolicyRule): Obj {
  const o: Obj = { verbs: [...r.verbs] };
  if (r.apiGroups.length > 0) o['apiGroups'] = [...r.apiGroups];
  if (r.resources.length > 0) o['resources'] = [...r.resources];
  if (r.resourceNames.length > 0) o['resourceNames'] = [...r.resourceNames];
  return o;
}

export async function selfSubjectRulesReview(
  body: Obj,
  user: UserInfo,
  resolver: RuleResolver,
  authorizationGroup: string,
): Promise<Obj> {
  const spec = recordOf(body['spec']);
  const namespace = s(spec['namespace']);
  const r = await resolver.rulesFor(user, namespace);
  const status: Obj = {
    resourceRules: r.resourceRules.map(resourceRule),
    nonResourceRules: r.nonResourceRules.map((n) => ({
      verbs: [...n.verbs],
      nonResourceURLs: [...n.nonResourceURLs],
    })),
    incomplete: r.incomplete,
  };
  if (r.evaluationError !== undefined && r.evaluationError !== '')
    status['evaluationError'] = r.evaluationError;
  return {
    kind: 'SelfSubjectRulesReview',
    apiVersion: `${authorizationGroup}/v1`,
    metadata: meta,
    spec: { namespace },
    status,
  };
}
