// Impersonation, as the reference's filter (apiserver/pkg/endpoints/filters/impersonation.go):
// `Impersonate-User` (a user or `system:serviceaccount:<ns>:<name>`), `Impersonate-Group`,
// `Impersonate-Uid` and `Impersonate-Extra-<key>` headers, each authorized with the `impersonate`
// verb on users, serviceaccounts, groups, uids or userextras/<key>. The request then runs as the
// impersonated user. A group, uid or extra without a user is refused with 400 (the reference
// answers 500, a server error for a client's mistake).

import type { IncomingMessage } from 'node:http';
import type { Authorizer, RequestAttributes } from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import { badRequest, forbidden } from '../status.js';
import { forbiddenMessage } from '../authz/attributes.js';

interface Request {
  readonly resource: 'users' | 'serviceaccounts' | 'groups' | 'userextras' | 'uids';
  readonly name: string;
  readonly namespace?: string;
  readonly subresource?: string;
}

const EXTRA_PREFIX = 'impersonate-extra-';
const MAX_HEADER_VALUES = 256;

function values(req: IncomingMessage, name: string): string[] {
  const v = req.headersDistinct[name];
  return (v ?? []).filter((x) => x !== '');
}

/** The impersonation requests of the headers, or undefined when there are none. */
function requestsOf(req: IncomingMessage): Request[] | undefined {
  const out: Request[] = [];
  const user = values(req, 'impersonate-user')[0] ?? '';
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user);
  if (user !== '')
    out.push(
      sa !== null
        ? { resource: 'serviceaccounts', namespace: sa[1] ?? '', name: sa[2] ?? '' }
        : { resource: 'users', name: user },
    );
  for (const g of values(req, 'impersonate-group')) out.push({ resource: 'groups', name: g });
  for (const header of Object.keys(req.headersDistinct)) {
    if (!header.startsWith(EXTRA_PREFIX)) continue;
    let key: string;
    try {
      key = decodeURIComponent(header.slice(EXTRA_PREFIX.length)).toLowerCase();
    } catch {
      throw badRequest(
        `impersonation header ${header}: the extra key is not valid percent-encoding`,
      );
    }
    for (const v of values(req, header))
      out.push({ resource: 'userextras', subresource: key, name: v });
  }
  const uid = values(req, 'impersonate-uid')[0] ?? '';
  if (uid !== '') out.push({ resource: 'uids', name: uid });
  if (out.length === 0) return undefined;
  if (out.length > MAX_HEADER_VALUES)
    throw badRequest(
      `too many impersonation headers: ${out.length}; at most ${MAX_HEADER_VALUES} are accepted`,
    );
  if (user === '')
    throw badRequest(
      'requested impersonation of groups, a uid or extra values without impersonating a ' +
        'user (Impersonate-User)',
    );
  return out;
}

/**
 * The user the request runs as: the authenticated one, or the impersonated one once every header is
 * authorized.
 */
export async function impersonatedUser(
  req: IncomingMessage,
  requester: UserInfo,
  authorizer: Authorizer,
  authenticationGroup: string,
): Promise<UserInfo> {
  const requests = requestsOf(req);
  if (requests === undefined) return requester;
  let username = '';
  let uid: string | undefined;
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  const groupsGiven = requests.some((r) => r.resource === 'groups');
  for (const r of requests) {
    const attrs: RequestAttributes = {
      user: requester,
      verb: 'impersonate',
      isResourceRequest: true,
      path: '',
      apiGroup: r.resource === 'userextras' || r.resource === 'uids' ? authenticationGroup : '',
      apiVersion: '',
      resource: r.resource,
      subresource: r.subresource ?? '',
      namespace: r.namespace ?? '',
      name: r.name,
    };
    const d = await authorizer.authorize(attrs);
    if (d.decision !== 'allow')
      throw forbidden(forbiddenMessage(attrs, d.reason), {
        name: r.name,
        group: attrs.apiGroup,
        kind: r.resource,
      });
    if (r.resource === 'users') username = r.name;
    else if (r.resource === 'serviceaccounts') {
      username = `system:serviceaccount:${r.namespace ?? ''}:${r.name}`;
      if (!groupsGiven)
        groups.push('system:serviceaccounts', `system:serviceaccounts:${r.namespace ?? ''}`);
    } else if (r.resource === 'groups') groups.push(r.name);
    else if (r.resource === 'userextras') (extra[r.subresource ?? ''] ??= []).push(r.name);
    else uid = r.name;
  }
  if (username !== 'system:anonymous') {
    if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated'))
      groups.push('system:authenticated');
  } else if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
  return {
    username,
    groups,
    ...(uid !== undefined ? { uid } : {}),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}
