// TokenReview and SubjectAccessReview: other components (the node agent's server) ask this
// server who a bearer token belongs to and whether a user may do something, answered by the
// same authenticators and authorizers that guard this server's own requests.

import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { Authorizer, RequestAttributes } from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import type { AuthenticatorChain } from '../authn/union.js';
import { reviewSelectors, validateReviewSelectors } from '../authz/review-selectors.js';
import { badRequest, invalid, type FieldErrorLike } from '../status.js';
import { recordOf } from '../../common/util/json-shape.js';

type Obj = Record<string, unknown>;

function s(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : [];
}

/**
 * Every authenticator here is audience-agnostic, as the reference wraps its token file and OIDC
 * authenticators: a token is good for this server's --api-audiences. The audiences asked for
 * (spec.audiences, else the API audiences) must share one with them, or the token is not
 * authenticated; status.audiences is what they share. With neither, no audience is checked.
 */
function audienceCheck(
  requested: readonly string[],
  apiAudiences: readonly string[],
): { ok: boolean; audiences?: string[] } {
  const target = requested.length > 0 ? requested : apiAudiences;
  if (target.length === 0) return { ok: true };
  const shared = apiAudiences.filter((a) => target.includes(a));
  return shared.length > 0 ? { ok: true, audiences: shared } : { ok: false };
}

/** A request carrying only the token: no client certificate, no path. */
function bearerRequest(token: string): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.headers = { authorization: `Bearer ${token}` };
  return req;
}

export async function tokenReview(
  body: Obj,
  authn: AuthenticatorChain,
  domain: string,
  apiAudiences: readonly string[] = [],
): Promise<Obj> {
  const spec = recordOf(body['spec']);
  const token = s(spec['token']);
  if (token === '') throw badRequest('token is required for TokenReview in authentication');
  const requested = strings(spec['audiences']);
  const auds = audienceCheck(requested, apiAudiences);
  // A token for other audiences is not looked at: not authenticated, and no error to learn from.
  const r = auds.ok ? await authn.authenticate(bearerRequest(token)) : undefined;
  const status: Obj =
    r?.ok === true && r.user.username !== 'system:anonymous'
      ? {
          authenticated: true,
          user: {
            username: r.user.username,
            ...(r.user.uid !== undefined && r.user.uid !== '' ? { uid: r.user.uid } : {}),
            groups: [...r.user.groups],
            ...(r.user.extra !== undefined ? { extra: r.user.extra } : {}),
          },
          ...(auds.audiences !== undefined ? { audiences: auds.audiences } : {}),
        }
      : r === undefined
        ? { authenticated: false, user: {} }
        : { authenticated: false, user: {}, error: 'invalid bearer token' };
  return {
    kind: 'TokenReview',
    apiVersion: `authentication.${domain}/v1`,
    metadata: { creationTimestamp: null },
    spec: { token: '', ...(requested.length > 0 ? { audiences: requested } : {}) },
    status,
  };
}

/** A LocalSubjectAccessReview: the namespace of its path. */
export interface LocalReview {
  readonly namespace: string;
}

/** The reference's ValidateLocalSubjectAccessReview additions (after the spec's own errors). */
function localErrors(spec: Obj, namespace: string): FieldErrorLike[] {
  const errs: FieldErrorLike[] = [];
  const ra = spec['resourceAttributes'];
  if (ra !== undefined && ra !== null && s(recordOf(ra)['namespace']) !== namespace) {
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.resourceAttributes.namespace',
      value: s(recordOf(ra)['namespace']),
      detail: 'must match metadata.namespace',
    });
  }
  const nra = spec['nonResourceAttributes'];
  if (nra !== undefined && nra !== null)
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.nonResourceAttributes',
      value: nra,
      detail: 'disallowed on this kind of request',
    });
  return errs;
}

/**
 * The namespace of a local review's object: the path's when absent, 400 when another (the
 * reference's create handler).
 */
function localNamespace(body: Obj, local: LocalReview): string {
  const ns = s(recordOf(body['metadata'])['namespace']);
  if (ns !== '' && ns !== local.namespace)
    throw badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  return local.namespace;
}

export async function subjectAccessReview(
  body: Obj,
  authz: Authorizer,
  domain: string,
  local?: LocalReview,
): Promise<Obj> {
  const kind = local === undefined ? 'SubjectAccessReview' : 'LocalSubjectAccessReview';
  const namespace = local === undefined ? undefined : localNamespace(body, local);
  const spec = recordOf(body['spec']);
  const ra = spec['resourceAttributes'];
  const nra = spec['nonResourceAttributes'];
  const errs: FieldErrorLike[] = [];
  if ((ra === undefined || ra === null) === (nra === undefined || nra === null)) {
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.resourceAttributes',
      value: '',
      detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified',
    });
  }
  if (ra !== undefined && ra !== null) errs.push(...validateReviewSelectors(recordOf(ra)));
  const username = s(spec['user']);
  const groups = Array.isArray(spec['groups'])
    ? spec['groups'].filter((g): g is string => typeof g === 'string')
    : [];
  if (username === '' && groups.length === 0) {
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.user',
      value: '',
      detail: 'at least one of user or group must be specified',
    });
  }
  if (namespace !== undefined) errs.push(...localErrors(spec, namespace));
  if (errs.length > 0) throw invalid(kind, `authorization.${domain}`, '', errs);
  const extraRaw = recordOf(spec['extra']);
  const extra: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(extraRaw)) if (Array.isArray(v)) extra[k] = v.map(String);
  const user: UserInfo = {
    username,
    groups,
    ...(s(spec['uid']) !== '' ? { uid: s(spec['uid']) } : {}),
    extra,
  };
  const attrs = reviewAttributes(user, ra, nra);
  const d = await authz.authorize(attrs);
  const status: Obj = { allowed: d.decision === 'allow' };
  if (d.decision === 'deny') status['denied'] = true;
  if (d.reason !== undefined && d.reason !== '') status['reason'] = d.reason;
  const metadata =
    namespace === undefined ? { creationTimestamp: null } : { namespace, creationTimestamp: null };
  return { kind, apiVersion: `authorization.${domain}/v1`, metadata, spec, status };
}

/**
 * The request attributes an access review asks about: its resourceAttributes (with selectors) or
 * its nonResourceAttributes, for `user` (SubjectAccessReview and SelfSubjectAccessReview alike).
 */
export function reviewAttributes(user: UserInfo, ra: unknown, nra: unknown): RequestAttributes {
  if (ra !== undefined && ra !== null) {
    const r = recordOf(ra);
    return {
      user,
      verb: s(r['verb']),
      isResourceRequest: true,
      path: '',
      apiGroup: s(r['group']),
      apiVersion: s(r['version']),
      resource: s(r['resource']),
      subresource: s(r['subresource']),
      namespace: s(r['namespace']),
      name: s(r['name']),
      ...reviewSelectors(r),
    };
  }
  const r = recordOf(nra);
  return {
    user,
    verb: s(r['verb']),
    isResourceRequest: false,
    path: s(r['path']),
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
  };
}
