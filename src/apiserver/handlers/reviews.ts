// TokenReview and SubjectAccessReview: other components (the node agent's server) ask this
// server who a bearer token belongs to and whether a user may do something, answered by the
// same authenticators and authorizers that guard this server's own requests.

import type { IncomingMessage } from 'node:http';
import type { Authorizer, RequestAttributes, UserInfo } from '../interfaces.js';
import type { AuthenticatorChain } from '../auth/chain.js';
import { badRequest, invalid, type FieldErrorLike } from '../status.js';

type Obj = Record<string, unknown>;

function obj(v: unknown): Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
}

function s(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export async function tokenReview(body: Obj, authn: AuthenticatorChain, domain: string): Promise<Obj> {
  const spec = obj(body['spec']);
  const token = s(spec['token']);
  if (token === '') throw badRequest('token is required for TokenReview in authentication');
  const fake = { headers: { authorization: `Bearer ${token}` }, socket: {} } as unknown as IncomingMessage;
  const r = await authn.authenticate(fake);
  const audiences = Array.isArray(spec['audiences']) ? spec['audiences'] : undefined;
  const status: Obj = r.ok && r.user.username !== 'system:anonymous'
    ? {
        authenticated: true,
        user: {
          username: r.user.username,
          ...(r.user.uid !== undefined && r.user.uid !== '' ? { uid: r.user.uid } : {}),
          groups: [...r.user.groups],
          ...(r.user.extra !== undefined ? { extra: r.user.extra } : {}),
        },
        ...(audiences !== undefined ? { audiences } : {}),
      }
    : { authenticated: false, user: {}, error: 'invalid bearer token' };
  return {
    kind: 'TokenReview',
    apiVersion: `authentication.${domain}/v1`,
    metadata: { creationTimestamp: null },
    spec: { token: '', ...(audiences !== undefined ? { audiences } : {}) },
    status,
  };
}

export async function subjectAccessReview(body: Obj, authz: Authorizer, domain: string): Promise<Obj> {
  const spec = obj(body['spec']);
  const ra = spec['resourceAttributes'];
  const nra = spec['nonResourceAttributes'];
  const errs: FieldErrorLike[] = [];
  if ((ra === undefined || ra === null) === (nra === undefined || nra === null)) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.resourceAttributes', value: '', detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified' });
  }
  const username = s(spec['user']);
  const groups = Array.isArray(spec['groups']) ? spec['groups'].filter((g): g is string => typeof g === 'string') : [];
  if (username === '' && groups.length === 0) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.user', value: '', detail: 'at least one of user or group must be specified' });
  }
  if (errs.length > 0) throw invalid('SubjectAccessReview', `authorization.${domain}`, '', errs);
  const extraRaw = obj(spec['extra']);
  const extra: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(extraRaw)) if (Array.isArray(v)) extra[k] = v.map(String);
  const user: UserInfo = { username, groups, ...(s(spec['uid']) !== '' ? { uid: s(spec['uid']) } : {}), extra };
  let attrs: RequestAttributes;
  if (ra !== undefined && ra !== null) {
    const r = obj(ra);
    attrs = {
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
    };
  } else {
    const r = obj(nra);
    attrs = { user, verb: s(r['verb']), isResourceRequest: false, path: s(r['path']), apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
  }
  const d = await authz.authorize(attrs);
  const status: Obj = { allowed: d.decision === 'allow' };
  if (d.decision === 'deny') status['denied'] = true;
  if (d.reason !== undefined && d.reason !== '') status['reason'] = d.reason;
  return { kind: 'SubjectAccessReview', apiVersion: `authorization.${domain}/v1`, metadata: { creationTimestamp: null }, spec, status };
}
