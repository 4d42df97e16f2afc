// Request attributes from method and path (the reference's RequestInfoFactory): API group,
// version, namespace, resource, subresource, name and verb; anything else is a non-resource
// request with the lower-cased method as verb.

import { labelRequirementToApi } from './review-selectors.js';
import type {
  FieldSelectorRequirement,
  LabelSelectorRequirement,
  RequestAttributes,
} from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import { cachedFieldSelector, cachedLabelSelector } from '../selectors/index.js';

const verbByMethod: Record<string, string> = {
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  GET: 'get',
  HEAD: 'get',
  DELETE: 'delete',
};

export function requestAttributes(
  method: string,
  pathname: string,
  search: URLSearchParams,
  user: UserInfo,
): RequestAttributes {
  const target = resourceTarget(pathname);
  if (target === undefined) return nonResourceAttributes(method, pathname, user);
  const { apiGroup, apiVersion, watchPath, namespace, resource, name, subresource } = target;
  const verb = resourceVerb(method, search, watchPath, name);
  const collection =
    name === '' && (verb === 'list' || verb === 'watch' || verb === 'deletecollection');
  const fieldSelector = collection ? fieldRequirements(search.get('fieldSelector')) : undefined;
  const labelSelector = collection ? labelRequirements(search.get('labelSelector')) : undefined;
  return {
    user,
    verb,
    isResourceRequest: true,
    path: pathname,
    apiGroup,
    apiVersion,
    resource,
    subresource,
    namespace,
    // As the reference: a list/watch pinned to one name by `metadata.name=` is about that name.
    name: verb === 'list' || verb === 'watch' ? (pinnedName(fieldSelector) ?? name) : name,
    ...(fieldSelector !== undefined ? { fieldSelector } : {}),
    ...(labelSelector !== undefined && labelSelector.length > 0 ? { labelSelector } : {}),
  };
}

function nonResourceAttributes(
  method: string,
  pathname: string,
  user: UserInfo,
): RequestAttributes {
  return {
    user,
    verb: method.toLowerCase(),
    isResourceRequest: false,
    path: pathname,
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
  };
}

interface ResourceTarget {
  readonly apiGroup: string;
  readonly apiVersion: string;
  /** The path began with /watch/ (the legacy watch paths). */
  readonly watchPath: boolean;
  readonly namespace: string;
  readonly resource: string;
  readonly name: string;
  readonly subresource: string;
}

/**
 * What a resource path names: /api/v1/..., /apis/{group}/{version}/...; undefined for any other
 * path.
 */
function resourceTarget(pathname: string): ResourceTarget | undefined {
  const parts = pathname.split('/').filter((p) => p !== '');
  let rest: string[];
  let apiGroup = '';
  let apiVersion: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    apiVersion = parts[1] ?? '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    apiGroup = parts[1] ?? '';
    apiVersion = parts[2] ?? '';
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  const watchPath = rest[0] === 'watch';
  if (watchPath) rest = rest.slice(1);
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    namespace = rest[1] ?? '';
    // `namespaces/{name}[/status|/finalize]` is the namespace object; deeper paths are inside it.
    if (rest.length > 2 && rest[2] !== 'status' && rest[2] !== 'finalize') rest = rest.slice(2);
  }
  const resource = rest[0] ?? '';
  if (resource === '') return undefined;
  return {
    apiGroup,
    apiVersion,
    watchPath,
    namespace,
    resource,
    name: rest[1] ?? '',
    subresource: rest[2] ?? '',
  };
}

/**
 * The reference's verb: by method, then watch/list for a read, deletecollection for a collection
 * DELETE.
 */
function resourceVerb(
  method: string,
  search: URLSearchParams,
  watchPath: boolean,
  name: string,
): string {
  if (method === 'GET' || method === 'HEAD') {
    const watchParam = search.get('watch');
    const watching =
      watchPath ||
      (watchParam !== null && watchParam !== '0' && watchParam.toLowerCase() !== 'false');
    if (watching) return 'watch';
    if (name === '') return 'list';
  }
  if (method === 'DELETE' && name === '') return 'deletecollection';
  return verbByMethod[method] ?? method.toLowerCase();
}

/** The requirements of a labelSelector in the API's form; none when absent or unparsable. */
function labelRequirements(text: string | null): readonly LabelSelectorRequirement[] | undefined {
  if (text === null || text === '') return undefined;
  try {
    return cachedLabelSelector(text).requirements.flatMap((r) => labelRequirementToApi(r) ?? []);
  } catch {
    return undefined;
  }
}

/**
 * The requirements of a fieldSelector; none when absent or unparsable (the handler answers 400
 * then).
 */
function fieldRequirements(text: string | null): readonly FieldSelectorRequirement[] | undefined {
  if (text === null || text === '') return undefined;
  try {
    return cachedFieldSelector(text).requirements;
  } catch {
    return undefined;
  }
}

function pinnedName(reqs: readonly FieldSelectorRequirement[] | undefined): string | undefined {
  const n = reqs?.find((r) => r.field === 'metadata.name' && r.op === '=')?.value;
  // The reference takes it only when it is a valid path segment name.
  return n === undefined ||
    n === '' ||
    n === '.' ||
    n === '..' ||
    n.includes('/') ||
    n.includes('%')
    ? undefined
    : n;
}

/**
 * The reference's Forbidden message:
 * `User "u" cannot list resource "events" in API group "" in the namespace "ns"`.
 */
export function forbiddenMessage(a: RequestAttributes, reason: string | undefined): string {
  const suffix = reason !== undefined && reason !== '' ? `: ${reason}` : '';
  if (!a.isResourceRequest)
    return `forbidden: User "${a.user.username}" cannot ${a.verb} path "${a.path}"${suffix}`;
  const res = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  const qualified = a.apiGroup === '' ? a.resource : `${a.resource}.${a.apiGroup}`;
  const target = a.name === '' ? qualified : `${qualified} "${a.name}"`;
  const scope = a.namespace === '' ? 'at the cluster scope' : `in the namespace "${a.namespace}"`;
  return (
    `${target} is forbidden: User "${a.user.username}" cannot ${a.verb} resource "${res}" ` +
    `in API group "${a.apiGroup}" ${scope}${suffix}`
  );
}
