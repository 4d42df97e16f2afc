// OpenAPI documents from the served kinds (catalog.ts): v3, one document per group-version
// (`/openapi/v3/apis/<group>/<version>`), and v2, one document for everything (`/openapi/v2`).

import type { Describe } from './descriptions.js';
import { Definitions, refTo, type Flavour, type Json } from './definitions.js';
import type { Catalog, GroupVersion } from './catalog.js';
import { patchBody } from '../schema/meta.js';
import { paramType, STATUS, type Operation, type PathItem } from './operations.js';
import { WIRE_NAMES } from '../../common/names.js';

const PATCH = 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch';
const RESPONSE_TYPES = ['application/json', 'application/yaml', WIRE_NAMES.protobufMediaType];
const PATCH_TYPES = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

function v3Param(name: string, where: 'query' | 'path'): Json {
  const p: Json = { name, in: where, schema: { type: paramType(name), uniqueItems: true } };
  if (where === 'path') p['required'] = true;
  return p;
}

function v2Param(name: string, where: 'query' | 'path'): Json {
  const p: Json = { name, in: where, type: paramType(name), uniqueItems: true };
  if (where === 'path') p['required'] = true;
  return p;
}

function v3Content(types: readonly string[], def: string): Json {
  return Object.fromEntries(types.map((t) => [t, { schema: refTo('v3', def) }]));
}

function v3Operation(op: Operation): Json {
  const responses: Json = {
    '200': { description: 'OK', content: v3Content(RESPONSE_TYPES, op.response) },
  };
  if (op.created === true)
    responses['201'] = { description: 'Created', content: v3Content(RESPONSE_TYPES, op.response) };
  responses['401'] = { description: 'Unauthorized' };
  const out: Json = { parameters: op.query.map((q) => v3Param(q, 'query')), responses };
  if (op.body === 'patch')
    out['requestBody'] = { content: v3Content(PATCH_TYPES, PATCH), required: true };
  else if (op.body !== undefined)
    out['requestBody'] = { content: v3Content(['*/*'], op.body), required: op.method !== 'delete' };
  out['x-kubernetes-action'] = op.action;
  out['x-kubernetes-group-version-kind'] = op.gvk;
  return out;
}

function v2Operation(op: Operation): Json {
  const params = op.query.map((q) => v2Param(q, 'query'));
  if (op.body !== undefined)
    params.unshift({
      name: 'body',
      in: 'body',
      required: op.method !== 'delete',
      schema: refTo('v2', op.body === 'patch' ? PATCH : op.body),
    });
  const responses: Json = { '200': { description: 'OK', schema: refTo('v2', op.response) } };
  if (op.created === true)
    responses['201'] = { description: 'Created', schema: refTo('v2', op.response) };
  responses['401'] = { description: 'Unauthorized' };
  return {
    consumes: op.body === 'patch' ? PATCH_TYPES : ['*/*'],
    produces: RESPONSE_TYPES,
    schemes: ['https'],
    parameters: params,
    responses,
    'x-kubernetes-action': op.action,
    'x-kubernetes-group-version-kind': op.gvk,
  };
}

function renderPaths(items: readonly PathItem[], flavour: Flavour): Json {
  const out: Json = {};
  const param = flavour === 'v3' ? v3Param : v2Param;
  const operation = flavour === 'v3' ? v3Operation : v2Operation;
  for (const item of [...items].sort((a, b) => a.path.localeCompare(b.path))) {
    const entry: Json = {};
    for (const op of item.ops) entry[op.method] = operation(op);
    entry['parameters'] = [
      ...item.pathParams.map((p) => param(p, 'path')),
      param('pretty', 'query'),
    ];
    out[item.path] = entry;
  }
  return out;
}

function definitionsOf(
  catalog: Catalog,
  gvs: readonly GroupVersion[],
  flavour: Flavour,
  describe: Describe | undefined,
): Definitions {
  const defs = new Definitions({ flavour, ...(describe === undefined ? {} : { describe }) });
  for (const { schema, gvk } of catalog.kinds(gvs)) defs.tag(defs.addNamed(schema), gvk);
  for (const s of catalog.metaTypes) defs.addNamed(s);
  defs.field(patchBody); // the body of a PATCH: any JSON, named so operations can refer to it
  for (const gv of catalog.groupVersions)
    for (const [kind, name] of catalog.sharedKinds)
      defs.tag(name, { group: gv.group, version: gv.version, kind });
  // Status belongs to the core group only, in every document (as the reference tags it).
  defs.tag(STATUS, { group: '', version: 'v1', kind: 'Status' });
  return defs;
}

/** The v3 document of one group-version. */
export function v3Document(
  catalog: Catalog,
  gv: GroupVersion,
  title: string,
  describe?: Describe,
): Json {
  const defs = definitionsOf(catalog, [gv], 'v3', describe);
  return {
    openapi: '3.0.0',
    info: { title, version: catalog.version },
    paths: renderPaths(catalog.paths([gv]), 'v3'),
    components: { schemas: defs.sorted() },
  };
}

/** The v2 document of everything served. */
export function v2Document(catalog: Catalog, title: string, describe?: Describe): Json {
  const defs = definitionsOf(catalog, catalog.groupVersions, 'v2', describe);
  return {
    swagger: '2.0',
    info: { title, version: catalog.version },
    paths: renderPaths(catalog.paths(catalog.groupVersions), 'v2'),
    definitions: defs.sorted(),
  };
}
