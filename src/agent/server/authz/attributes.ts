// Request attributes as the reference builds them ("Server" item 5): the verb from the method,
// resource `nodes` named after this node, and a subresource chosen by path prefix.

import type { RequestAttributes, UserInfo } from '../types.js';

const VERBS: Readonly<Record<string, string>> = {
  GET: 'get',
  HEAD: 'get',
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** True when `path` is `prefix` itself or below it (`/stats`, `/stats/summary`, not `/statsx`). */
function isSubpath(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

export function subresourceFor(path: string): string {
  if (isSubpath(path, '/stats')) return 'stats';
  if (isSubpath(path, '/metrics')) return 'metrics';
  if (isSubpath(path, '/logs')) return 'log';
  return 'proxy';
}

export function requestAttributes(
  user: UserInfo,
  method: string,
  path: string,
  nodeName: string,
): RequestAttributes {
  return {
    user,
    verb: VERBS[method.toUpperCase()] ?? method.toLowerCase(),
    namespace: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'nodes',
    subresource: subresourceFor(path),
    name: nodeName,
    path,
  };
}

/** The 403 body of the reference. */
export function forbiddenMessage(a: RequestAttributes): string {
  return (
    `Forbidden (user=${a.user.username}, verb=${a.verb}, resource=${a.resource}, ` +
    `subresource=${a.subresource})`
  );
}

/** The 500 body when the authorizer could not decide. */
export function authorizationErrorMessage(a: RequestAttributes, reason: string): string {
  return (
    `Authorization error (user=${a.user.username}, verb=${a.verb}, resource=${a.resource}` +
    `, subresource=${a.subresource}): ${reason}`
  );
}
