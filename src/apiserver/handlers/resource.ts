// The REST handler of one resource path: routes the method and path shape (collection, item,
// subresource, watch path) to the registry with the parameter set of that endpoint.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authorizer } from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import type { Clock } from '../../common/util/clock.js';
import { Params, type ParamSet } from '../params.js';
import { badRequest, methodNotAllowed, StatusError, notFound } from '../status.js';
import { goQuote } from '../../common/util/go-quote.js';
import { isPathSegmentName } from '../registry/meta.js';
import {
  listJson,
  listObjects,
  listProtobuf,
  parseListOptions,
  type ListOptions,
} from '../registry/list.js';
import type { Registry } from '../registry/registry.js';
import { apiVersionOf, metaOf, str, type Obj, type ResourceDef } from '../registry/types.js';
import { serveWatch, type WatchSettings } from '../watch/watch.js';
import { mediaType, readBodyBytes } from './body.js';
import { decodeProtobufObject } from './protobuf.js';
import { readRequestObject } from './request-object.js';
import type { BodyDecoder } from './decode-object.js';
import { applyFieldValidation } from './decode-object.js';
import { parseDeleteOptions, parseWriteOptions } from './options.js';
import { applyPatchBody, patchTypeOf } from './patch-adapter.js';
import {
  compactJson,
  sendEncoded,
  sendJson,
  sendJsonText,
  type ResponseContext,
} from './respond.js';
import { responseConversion, type ResponseConversion } from './table.js';
import { WIRE_NAMES } from '../../common/names.js';
import { actionKey, type SubresourceAction, type SubresourceActions } from './actions.js';
import { recordOf } from '../../common/util/json-shape.js';

/** The request's abort signal, made when read (server.ts's RequestAbort): watches read it. */
export interface RequestSignal {
  readonly signal: AbortSignal;
}

export interface ResourceRoute {
  readonly def: ResourceDef;
  readonly namespace: string;
  readonly name: string;
  readonly subresource: string;
  /** A `/watch/` path. */
  readonly watchPath: boolean;
  /** A namespaced resource listed across all namespaces (`/api/v1/events`). */
  readonly allNamespaces: boolean;
}

export interface ResourceHandlerContext {
  readonly registry: Registry;
  /** POST-only subresources (serviceaccounts/token, pods/binding): actions.ts. */
  readonly actions?: SubresourceActions;
  readonly platformDomain: string;
  readonly maxBodyBytes: number;
  /** Where create, update and action bodies are decoded (--worker-threads). */
  readonly bodyDecoder?: BodyDecoder | undefined;
  readonly watch: WatchSettings;
  readonly shardingEnabled: boolean;
  readonly authorizer: Authorizer;
  readonly clock: Clock;
}

function params(search: URLSearchParams, set: ParamSet): Params {
  return new Params(search, set);
}

/** One request to a resource path, with what every handler of it needs. */
interface ResourceCall {
  readonly c: ResourceHandlerContext;
  readonly r: ResourceRoute;
  readonly def: ResourceDef;
  readonly method: string;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly search: URLSearchParams;
  readonly user: UserInfo;
  readonly rc: ResponseContext;
  readonly abort: RequestSignal;
}

export async function handleResource(
  c: ResourceHandlerContext,
  r: ResourceRoute,
  req: IncomingMessage,
  res: ServerResponse,
  search: URLSearchParams,
  user: UserInfo,
  rc: ResponseContext,
  abort: RequestSignal,
): Promise<void> {
  const call: ResourceCall = {
    c,
    r,
    def: r.def,
    method: req.method ?? 'GET',
    req,
    res,
    search,
    user,
    rc,
    abort,
  };
  if (r.subresource !== '' && !r.def.subresources.includes(r.subresource)) throw notFoundPath();
  if (r.watchPath) {
    await watchByPath(call);
    return;
  }
  if (r.name === '') await handleCollection(call);
  else await handleItem(call);
}

/** A `/watch/` path: a watch of the collection, or of one object by name. */
async function watchByPath(call: ResourceCall): Promise<void> {
  const { c, r, def } = call;
  if (call.method !== 'GET') throw methodNotAllowed(call.method);
  const o = parseListOptions(params(call.search, 'L'), {
    def,
    platformDomain: c.platformDomain,
    shardingEnabled: c.shardingEnabled,
    forceWatch: true,
    ...(r.name === '' ? {} : { name: r.name }),
  });
  await serveWatch(
    call.res,
    c.registry,
    def,
    r.namespace,
    o,
    c.watch,
    call.abort.signal,
    conversion(c, def, call.req, call.search)?.watch(),
    call.rc.encoder !== undefined,
  );
}

async function handleCollection(call: ResourceCall): Promise<void> {
  switch (call.method) {
    case 'GET':
      return listOrWatch(call);
    case 'POST':
      if (call.r.allNamespaces) throw methodNotAllowed(call.method);
      return createItem(call);
    case 'DELETE':
      if (call.r.allNamespaces) throw methodNotAllowed(call.method);
      return deleteItems(call);
    default:
      throw methodNotAllowed(call.method);
  }
}

async function listOrWatch(call: ResourceCall): Promise<void> {
  const { c, r, def, res, rc } = call;
  const o = parseListOptions(params(call.search, 'L'), {
    def,
    platformDomain: c.platformDomain,
    shardingEnabled: c.shardingEnabled,
  });
  const conv = conversion(c, def, call.req, call.search);
  if (o.watch) {
    await serveWatch(
      res,
      c.registry,
      def,
      r.namespace,
      o,
      c.watch,
      call.abort.signal,
      conv?.watch(),
      rc.encoder !== undefined,
    );
    return;
  }
  if (conv === undefined && (await sendListFast(res, c, def, r.namespace, o, rc))) return;
  const list = await listObjects(c.registry, def, r.namespace, o);
  sendJson(res, 200, conv === undefined ? list : conv.list(list.items, list.metadata), rc);
}

async function createItem(call: ResourceCall): Promise<void> {
  const { c, def, req, rc } = call;
  const wo = parseWriteOptions(params(call.search, 'W'), req, 'CreateOptions', c.platformDomain);
  const body = await decodeBody(c, def, req, wo.fieldValidation, rc);
  const created = await c.registry.create(def, call.r.namespace, body, {
    user: call.user,
    dryRun: wo.dryRun,
    fieldManager: wo.fieldManager,
    subresource: '',
    bodyOwned: true,
  });
  sendJson(call.res, 201, created, rc);
}

async function deleteItems(call: ResourceCall): Promise<void> {
  const { c, def } = call;
  const p = params(call.search, 'DC');
  const dopts = parseDeleteOptions(p, await readDeleteBody(c, def, call.req), c.platformDomain);
  const o = parseListOptions(p, {
    def,
    platformDomain: c.platformDomain,
    shardingEnabled: c.shardingEnabled,
  });
  sendJson(
    call.res,
    200,
    await deleteCollection(c, def, call.r.namespace, o, dopts, call.user),
    call.rc,
  );
}

async function handleItem(call: ResourceCall): Promise<void> {
  const { method } = call;
  const action = call.c.actions?.get(
    actionKey(call.def.group, call.def.resource, call.r.subresource),
  );
  if (action !== undefined) {
    if (method !== 'POST') throw methodNotAllowed(method);
    checkPathName(call.r.name);
    return runAction(call, action);
  }
  if (method === 'GET' || method === 'PUT' || method === 'PATCH' || method === 'DELETE')
    checkPathName(call.r.name);
  switch (method) {
    case 'GET':
      return getItem(call);
    case 'PUT':
      return putItem(call);
    case 'PATCH':
      return patchItem(call);
    case 'DELETE':
      if (call.r.subresource !== '') throw methodNotAllowed(method);
      return deleteItem(call);
    default:
      throw methodNotAllowed(method);
  }
}

/** A POST to an action subresource: its own request kind in, its answer out. */
async function runAction(call: ResourceCall, action: SubresourceAction): Promise<void> {
  const { c, r, rc } = call;
  const wo = parseWriteOptions(
    params(call.search, 'W'),
    call.req,
    'CreateOptions',
    c.platformDomain,
  );
  const body = await readRequestObject(call.req, {
    maxBodyBytes: c.maxBodyBytes,
    decoder: c.bodyDecoder,
    kind: action.kind,
    apiVersion: action.apiVersion,
    version: 'v1',
    fieldValidation: () => wo.fieldValidation,
    warnings: rc.warnings,
  });
  const out = await action.create({
    namespace: r.namespace,
    name: r.name,
    body,
    user: call.user,
    dryRun: wo.dryRun,
    warnings: rc.warnings,
  });
  sendJson(call.res, out.code, out.object, rc);
}

async function getItem(call: ResourceCall): Promise<void> {
  const { c, r, def } = call;
  params(call.search, 'R');
  const conv = conversion(c, def, call.req, call.search);
  const obj = withKind(def, await c.registry.get(def, r.namespace, r.name));
  sendJson(call.res, 200, conv === undefined ? obj : conv.one(obj), call.rc);
}

async function putItem(call: ResourceCall): Promise<void> {
  const { c, r, def, rc } = call;
  const wo = parseWriteOptions(
    params(call.search, 'W'),
    call.req,
    'UpdateOptions',
    c.platformDomain,
  );
  const body = await decodeBody(c, def, call.req, wo.fieldValidation, rc);
  const out = await c.registry.update(
    def,
    r.namespace,
    r.name,
    {
      user: call.user,
      dryRun: wo.dryRun,
      fieldManager: wo.fieldManager,
      subresource: r.subresource,
    },
    () => body,
  );
  sendJson(call.res, out.created ? 201 : 200, withKind(def, out.object), rc);
}

async function patchItem(call: ResourceCall): Promise<void> {
  const { c, r, def, req } = call;
  const patchType = patchTypeOf(req.headers['content-type']);
  const wo = parseWriteOptions(
    params(call.search, 'P'),
    req,
    'PatchOptions',
    c.platformDomain,
    patchType,
  );
  const patch: PatchRequest = {
    patchType,
    wo,
    patchBody: (await readBodyBytes(req, c.maxBodyBytes)).toString('utf8'),
    isApply: patchType === 'application/apply-patch+yaml',
  };
  const out = await c.registry.update(
    def,
    r.namespace,
    r.name,
    {
      user: call.user,
      dryRun: wo.dryRun,
      fieldManager: wo.fieldManager,
      subresource: r.subresource,
      operation: patch.isApply ? 'Apply' : 'Update',
      allowCreate: patch.isApply,
    },
    (current) => patchedObject(call, patch, current),
  );
  sendJson(call.res, out.created ? 201 : 200, withKind(def, out.object), call.rc);
}

interface PatchRequest {
  readonly patchType: ReturnType<typeof patchTypeOf>;
  readonly wo: ReturnType<typeof parseWriteOptions>;
  readonly patchBody: string;
  /** Server-side apply: creates the object when it does not exist. */
  readonly isApply: boolean;
}

/**
 * The object after the patch (the registry's update callback), with field validation's warnings
 * added to the response.
 */
function patchedObject(call: ResourceCall, p: PatchRequest, current: Obj | undefined): Obj {
  const { c, r, def, rc } = call;
  if (current === undefined && !p.isApply) throw notFound(def.resource, def.group, r.name);
  const patched = applyPatchBody({
    live: current,
    patchBody: p.patchBody,
    contentType: p.patchType,
    kind: def.kind,
    manager: p.wo.fieldManager,
    force: p.wo.force,
    subresource: r.subresource,
    apiVersion: apiVersionOf(def),
    now: c.clock.now(),
  });
  const warnings: string[] = [];
  applyFieldValidation(
    {
      ...patched,
      unknownFields: [...patched.unknownFields],
      duplicateFields: [...patched.duplicateFields],
    },
    p.wo.fieldValidation,
    def.kind,
    def.version,
    warnings,
  );
  for (const w of warnings) if (!rc.warnings.includes(w)) rc.warnings.push(w);
  if (current === undefined) {
    const m = recordOf(patched.object['metadata']);
    if (m['name'] === undefined) m['name'] = r.name;
    patched.object['metadata'] = m;
  }
  return patched.object;
}

async function deleteItem(call: ResourceCall): Promise<void> {
  const { c, r, def } = call;
  const dopts = parseDeleteOptions(
    params(call.search, 'D'),
    await readDeleteBody(c, def, call.req),
    c.platformDomain,
  );
  const out = await c.registry.delete(def, r.namespace, r.name, { user: call.user, ...dopts });
  const body = out.body.kind === 'Status' ? out.body : withKind(def, recordOf(out.body));
  sendJson(call.res, out.code, body, call.rc);
}

/** The Table or metadata conversion the request's Accept header asks for (table.ts). */
function conversion(
  c: ResourceHandlerContext,
  def: ResourceDef,
  req: IncomingMessage,
  search: URLSearchParams,
): ResponseConversion | undefined {
  return responseConversion({
    headers: req.headers,
    search,
    def,
    platformDomain: c.platformDomain,
    now: () => c.clock.now(),
  });
}

/**
 * The reference's key function rejects a name that cannot be a path segment (NamespaceKeyFunc:
 * `Name parameter invalid: "..": may not be '..'`), so `.`, `..` and names with `%` never reach
 * the store. (`/` cannot occur: the path is split after decoding, as the reference does.)
 */
function checkPathName(name: string): void {
  const msgs = isPathSegmentName(name);
  if (msgs.length > 0)
    throw badRequest(`Name parameter invalid: ${goQuote(name)}: ${msgs.join(';')}`);
}

function notFoundPath(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

function withKind(def: ResourceDef, obj: Obj): Obj {
  return { ...obj, kind: def.kind, apiVersion: apiVersionOf(def) };
}

async function decodeBody(
  c: ResourceHandlerContext,
  def: ResourceDef,
  req: IncomingMessage,
  mode: 'Ignore' | 'Warn' | 'Strict',
  rc: ResponseContext,
): Promise<Obj> {
  return readRequestObject(req, {
    maxBodyBytes: c.maxBodyBytes,
    decoder: c.bodyDecoder,
    kind: def.kind,
    apiVersion: apiVersionOf(def),
    version: def.version,
    fieldValidation: () => mode,
    warnings: rc.warnings,
  });
}

/** A DeleteOptions body as JSON text (a protobuf DeleteOptions is decoded first). */
async function readDeleteBody(
  c: ResourceHandlerContext,
  def: ResourceDef,
  req: IncomingMessage,
): Promise<string> {
  const bytes = await readBodyBytes(req, c.maxBodyBytes);
  if (bytes.length > 0 && mediaType(req) === WIRE_NAMES.protobufMediaType)
    return JSON.stringify(decodeProtobufObject(bytes, 'DeleteOptions', apiVersionOf(def)));
  return bytes.toString('utf8');
}

async function deleteCollection(
  c: ResourceHandlerContext,
  def: ResourceDef,
  namespace: string,
  o: ListOptions,
  dopts: ReturnType<typeof parseDeleteOptions>,
  user: UserInfo,
): Promise<unknown> {
  const list = await listObjects(c.registry, def, namespace, o);
  const items: Obj[] = [];
  for (const item of list.items) {
    const meta = metaOf(item);
    try {
      const out = await c.registry.delete(
        def,
        str(meta['namespace']) ?? '',
        str(meta['name']) ?? '',
        { user, ...dopts },
      );
      items.push(withKind(def, out.object ?? item));
    } catch (err) {
      if (err instanceof StatusError && err.status === 404) continue;
      throw err;
    }
  }
  return { ...list, items };
}

/**
 * A list whose items come from the served cache (compact JSON, or protobuf); false when the
 * response needs the general path (pretty JSON, a kind without a protobuf message).
 */
async function sendListFast(
  res: ServerResponse,
  c: ResourceHandlerContext,
  def: ResourceDef,
  namespace: string,
  o: ListOptions,
  rc: ResponseContext,
): Promise<boolean> {
  if (compactJson(rc)) {
    sendJsonText(res, 200, await listJson(c.registry, def, namespace, o), rc);
    return true;
  }
  const encoder = rc.encoder;
  if (encoder?.contentType !== WIRE_NAMES.protobufMediaType) return false;
  const body = await listProtobuf(c.registry, def, namespace, o);
  if (body === undefined) return false;
  sendEncoded(res, 200, body, { ...rc, encoder });
  return true;
}
