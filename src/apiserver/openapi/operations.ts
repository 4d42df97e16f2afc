// The operations of the served resources, flavour-neutral: which paths exist, which verbs each
// answers, with which query parameters, request body and response type. documents.ts renders
// them as OpenAPI v2 and v3 operations.

import type { Gvk } from './definitions.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type ParamType = 'string' | 'integer' | 'boolean';

export interface Operation {
  readonly method: Method;
  readonly action: string;
  readonly gvk: Gvk;
  readonly query: readonly string[];
  /** Definition name of the request body; `patch` for the PATCH media types. */
  readonly body?: string;
  /** Definition name of the 200 (and 201 for writes) answer. */
  readonly response: string;
  readonly created?: boolean;
}

export interface PathItem {
  readonly path: string;
  readonly pathParams: readonly string[];
  readonly ops: readonly Operation[];
}

/** A resource as the documents need it. */
export interface ServedResource {
  readonly gvk: Gvk;
  readonly resource: string;
  readonly namespaced: boolean;
  readonly subresources: readonly string[];
  /** Definition names of the kind and its list. */
  readonly def: string;
  readonly listDef: string;
  readonly deleteCollection: boolean;
}

/** A review endpoint: POST only, answered at once. */
export interface ServedReview {
  readonly gvk: Gvk;
  readonly resource: string;
  readonly def: string;
  readonly namespaced: boolean;
}

const PARAM_TYPES: Readonly<Record<string, ParamType>> = {
  limit: 'integer',
  timeoutSeconds: 'integer',
  gracePeriodSeconds: 'integer',
  watch: 'boolean',
  allowWatchBookmarks: 'boolean',
  sendInitialEvents: 'boolean',
  force: 'boolean',
  orphanDependents: 'boolean',
  ignoreStoreReadErrorWithClusterBreakingPotential: 'boolean',
};

export function paramType(name: string): ParamType {
  return PARAM_TYPES[name] ?? 'string';
}

const LIST_QUERY = [
  'allowWatchBookmarks',
  'continue',
  'fieldSelector',
  'labelSelector',
  'limit',
  'resourceVersion',
  'resourceVersionMatch',
  'sendInitialEvents',
  'timeoutSeconds',
  'watch',
];
const WRITE_QUERY = ['dryRun', 'fieldManager', 'fieldValidation'];
const DELETE_QUERY = [
  'dryRun',
  'gracePeriodSeconds',
  'ignoreStoreReadErrorWithClusterBreakingPotential',
  'orphanDependents',
  'propagationPolicy',
];

export const DELETE_OPTIONS = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
export const STATUS = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';

export function gvPrefix(group: string, version: string): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

function collectionOps(r: ServedResource): Operation[] {
  const g = r.gvk;
  const ops: Operation[] = [
    { method: 'get', action: 'list', gvk: g, query: LIST_QUERY, response: r.listDef },
    {
      method: 'post',
      action: 'post',
      gvk: g,
      query: WRITE_QUERY,
      body: r.def,
      response: r.def,
      created: true,
    },
  ];
  if (r.deleteCollection)
    ops.push({
      method: 'delete',
      action: 'deletecollection',
      gvk: g,
      query: [
        ...DELETE_QUERY,
        ...LIST_QUERY.filter((q) => q !== 'watch' && q !== 'allowWatchBookmarks'),
      ],
      body: DELETE_OPTIONS,
      response: STATUS,
    });
  return ops;
}

function itemOps(gvk: Gvk, def: string, withDelete: boolean): Operation[] {
  const ops: Operation[] = [
    { method: 'get', action: 'get', gvk, query: [], response: def },
    {
      method: 'put',
      action: 'put',
      gvk,
      query: WRITE_QUERY,
      body: def,
      response: def,
      created: true,
    },
    {
      method: 'patch',
      action: 'patch',
      gvk,
      query: [...WRITE_QUERY, 'force'],
      body: 'patch',
      response: def,
      created: true,
    },
  ];
  if (withDelete)
    ops.push({
      method: 'delete',
      action: 'delete',
      gvk,
      query: DELETE_QUERY,
      body: DELETE_OPTIONS,
      response: def,
    });
  return ops;
}

/**
 * Every path of a resource: collection, item, subresources and (namespaced) the all-namespaces
 * list.
 */
export function resourcePaths(r: ServedResource): PathItem[] {
  const prefix = gvPrefix(r.gvk.group, r.gvk.version);
  const ns = r.namespaced ? ['namespace'] : [];
  const base = `${prefix}/${r.namespaced ? 'namespaces/{namespace}/' : ''}${r.resource}`;
  const out: PathItem[] = [
    { path: base, pathParams: ns, ops: collectionOps(r) },
    { path: `${base}/{name}`, pathParams: [...ns, 'name'], ops: itemOps(r.gvk, r.def, true) },
    ...r.subresources.map((s) => ({
      path: `${base}/{name}/${s}`,
      pathParams: [...ns, 'name'],
      ops: itemOps(r.gvk, r.def, false),
    })),
  ];
  if (r.namespaced)
    out.push({
      path: `${prefix}/${r.resource}`,
      pathParams: [],
      ops: [{ method: 'get', action: 'list', gvk: r.gvk, query: LIST_QUERY, response: r.listDef }],
    });
  return out;
}

export function reviewPath(r: ServedReview): PathItem {
  const namespaced = r.namespaced ? 'namespaces/{namespace}/' : '';
  return {
    path: `${gvPrefix(r.gvk.group, r.gvk.version)}/${namespaced}${r.resource}`,
    pathParams: r.namespaced ? ['namespace'] : [],
    ops: [
      {
        method: 'post',
        action: 'post',
        gvk: r.gvk,
        query: WRITE_QUERY,
        body: r.def,
        response: r.def,
        created: true,
      },
    ],
  };
}
