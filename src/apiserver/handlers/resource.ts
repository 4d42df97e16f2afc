// The REST handler of one resource path: routes the method and path shape (collection, item,
// subresource, watch path) to the registry with the parameter set of that endpoint.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authorizer } from '../interfaces.js';
import type { UserInfo } from '../../common/auth/user.js';
import type { Clock } from '../../common/util/clock.js';
import { Params, type ParamSet } from '../params.js';
import { badRequest, methodNotAllowed, StatusError, notFound } from '../status.js';
import { goQuote } from '../go-quote.js';
import { isPathSegmentName } from '../registry/meta.js';
import { listJson, listObjects, listProtobuf, parseListOptions, type ListOptions } from '../registry/list.js';
import type { Registry } from '../registry/registry.js';
import { apiVersionOf, metaOf, str, type Obj, type ResourceDef } from '../registry/types.js';
import { serveWatch, type WatchSettings } from '../watch/watch.js';
import { mediaType, readBodyBytes, requireObjectMediaType } from './body.js';
import { decodeProtobufObject } from './protobuf.js';
import { applyFieldValidation, decodeObject } from './decode-object.js';
import { parseDeleteOptions, parseWriteOptions } from './options.js';
import { applyPatchBody, patchTypeOf } from './patch-adapter.js';
import { compactJson, sendEncoded, sendJson, sendJsonText, type ResponseContext } from './respond.js';
import { PROTOBUF_MEDIA_TYPE } from '../../common/protobuf/codec.js';
import { responseConversion, type ResponseConversion } from './table.js';
import { WIRE_NAMES } from '../../common/names.js';

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
  readonly platformDomain: string;
  readonly maxBodyBytes: number;
  readonly watch: WatchSettings;
  readonly shardingEnabled: boolean;
  readonly authorizer: Authorizer;
  readonly clock: Clock;
}

function params(search: URLSearchParams, set: ParamSet): Params {
  return new Params(search, set);
}

export async function handleResource(
  c: ResourceHandlerContext,
  r: ResourceRoute,
  req: IncomingMessage,
  res: ServerResponse,
  search: URLSearchParams,
  user: UserInfo,
  rc: ResponseContext,
  signal: AbortSignal,
): Promise<void> {
  const method = req.method ?? 'GET';
  const { def } = r;
  if (r.subresource !== '' && !def.subresources.includes(r.subresource)) throw notFoundPath();
  if (r.watchPath) {
    if (method !== 'GET') throw methodNotAllowed(method);
    const o = parseListOptions(params(search, 'L'), { def, platformDomain: c.platformDomain, shardingEnabled: c.shardingEnabled, forceWatch: true, ...(r.name === '' ? {} : { name: r.name }) });
    await serveWatch(res, c.registry, def, r.namespace, o, c.watch, signal, conversion(c, def, req, search)?.watch(), rc.encoder !== undefined);
    return;
  }
  if (r.name === '') {
    switch (method) {
      case 'GET': {
        const o = parseListOptions(params(search, 'L'), { def, platformDomain: c.platformDomain, shardingEnabled: c.shardingEnabled });
        const conv = conversion(c, def, req, search);
        if (o.watch) {
          await serveWatch(res, c.registry, def, r.namespace, o, c.watch, signal, conv?.watch(), rc.encoder !== undefined);
          return;
        }
        if (conv === undefined && (await sendListFast(res, c, def, r.namespace, o, rc))) return;
        const list = await listObjects(c.registry, def, r.namespace, o);
        sendJson(res, 200, conv === undefined ? list : conv.list(list.items, list.metadata), rc);
        return;
      }
      case 'POST': {
        if (r.allNamespaces) throw methodNotAllowed(method);
        const p = params(search, 'W');
        const wo = parseWriteOptions(p, req, 'CreateOptions', c.platformDomain);
        const body = await decodeBody(c, def, req, wo.fieldValidation, rc);
        const created = await c.registry.create(def, r.namespace, body, { user, dryRun: wo.dryRun, fieldManager: wo.fieldManager, subresource: '' });
        sendJson(res, 201, created, rc);
        return;
      }
      case 'DELETE': {
        if (r.allNamespaces) throw methodNotAllowed(method);
        const p = params(search, 'DC');
        const dopts = parseDeleteOptions(p, await readDeleteBody(c, def, req), c.platformDomain);
        const o = parseListOptions(p, { def, platformDomain: c.platformDomain, shardingEnabled: c.shardingEnabled });
        sendJson(res, 200, await deleteCollection(c, def, r.namespace, o, dopts, user), rc);
        return;
      }
      default:
        throw methodNotAllowed(method);
    }
  }
  if (method === 'GET' || method === 'PUT' || method === 'PATCH' || method === 'DELETE') checkPathName(r.name);
  switch (method) {
    case 'GET': {
      params(search, 'R');
      const conv = conversion(c, def, req, search);
      const obj = withKind(def, await c.registry.get(def, r.namespace, r.name));
      sendJson(res, 200, conv === undefined ? obj : conv.one(obj), rc);
      return;
    }
    case 'PUT': {
      const wo = parseWriteOptions(params(search, 'W'), req, 'UpdateOptions', c.platformDomain);
      const body = await decodeBody(c, def, req, wo.fieldValidation, rc);
      const out = await c.registry.update(def, r.namespace, r.name, { user, dryRun: wo.dryRun, fieldManager: wo.fieldManager, subresource: r.subresource }, () => body);
      sendJson(res, out.created ? 201 : 200, withKind(def, out.object), rc);
      return;
    }
    case 'PATCH': {
      const patchType = patchTypeOf(req.headers['content-type']);
      const wo = parseWriteOptions(params(search, 'P'), req, 'PatchOptions', c.platformDomain, patchType);
      const patchBody = (await readBodyBytes(req, c.maxBodyBytes)).toString('utf8');
      const isApply = patchType === 'application/apply-patch+yaml';
      const out = await c.registry.update(
        def,
        r.namespace,
        r.name,
        { user, dryRun: wo.dryRun, fieldManager: wo.fieldManager, subresource: r.subresource, operation: isApply ? 'Apply' : 'Update', allowCreate: isApply },
        (current) => {
          if (current === undefined && !isApply) throw notFound(def.resource, def.group, r.name);
          const patched = applyPatchBody({
            live: current,
            patchBody,
            contentType: patchType,
            kind: def.kind,
            manager: wo.fieldManager,
            force: wo.force,
            subresource: r.subresource,
            apiVersion: apiVersionOf(def),
            now: c.clock.now(),
          });
          const warnings: string[] = [];
          applyFieldValidation({ ...patched, unknownFields: [...patched.unknownFields], duplicateFields: [...patched.duplicateFields] }, wo.fieldValidation, def.kind, def.version, warnings);
          for (const w of warnings) if (!rc.warnings.includes(w)) rc.warnings.push(w);
          if (current === undefined) {
            const m = (patched.object['metadata'] ?? {}) as Obj;
            if (m['name'] === undefined) m['name'] = r.name;
            patched.object['metadata'] = m;
          }
          return patched.object;
        },
      );
      sendJson(res, out.created ? 201 : 200, withKind(def, out.object), rc);
      return;
    }
    case 'DELETE': {
      if (r.subresource !== '') throw methodNotAllowed(method);
      const dopts = parseDeleteOptions(params(search, 'D'), await readDeleteBody(c, def, req), c.platformDomain);
      const out = await c.registry.delete(def, r.namespace, r.name, { user, ...dopts });
      const body = 'kind' in out.body && out.body['kind'] === 'Status' ? out.body : withKind(def, out.body as Obj);
      sendJson(res, out.code, body, rc);
      return;
    }
    default:
      throw methodNotAllowed(method);
  }
}

/** The Table or metadata conversion the request's Accept header asks for (table.ts). */
function conversion(c: ResourceHandlerContext, def: ResourceDef, req: IncomingMessage, search: URLSearchParams): ResponseConversion | undefined {
  return responseConversion({ headers: req.headers, search, def, platformDomain: c.platformDomain, now: () => c.clock.now() });
}

/**
 * The reference's key function rejects a name that cannot be a path segment (NamespaceKeyFunc:
 * `Name parameter invalid: "..": may not be '..'`), so `.`, `..` and names with `%` never reach
 * the store. (`/` cannot occur: the path is split after decoding, as the reference does.)
 */
function checkPathName(name: string): void {
  const msgs = isPathSegmentName(name);
  if (msgs.length > 0) throw badRequest(`Name parameter invalid: ${goQuote(name)}: ${msgs.join(';')}`);
}

function notFoundPath(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

function withKind(def: ResourceDef, obj: Obj): Obj {
  return { ...obj, kind: def.kind, apiVersion: apiVersionOf(def) };
}

async function decodeBody(c: ResourceHandlerContext, def: ResourceDef, req: IncomingMessage, mode: 'Ignore' | 'Warn' | 'Strict', rc: ResponseContext): Promise<Obj> {
  const contentType = requireObjectMediaType(req);
  const bytes = await readBodyBytes(req, c.maxBodyBytes);
  if (contentType === WIRE_NAMES.protobufMediaType) return decodeProtobufObject(bytes, def.kind, apiVersionOf(def));
  const decoded = decodeObject({ body: bytes.toString('utf8'), contentType, kind: def.kind, apiVersion: apiVersionOf(def) });
  applyFieldValidation(decoded, mode, def.kind, def.version, rc.warnings);
  return decoded.object;
}

/** A DeleteOptions body as JSON text (a protobuf DeleteOptions is decoded first). */
async function readDeleteBody(c: ResourceHandlerContext, def: ResourceDef, req: IncomingMessage): Promise<string> {
  const bytes = await readBodyBytes(req, c.maxBodyBytes);
  if (bytes.length > 0 && mediaType(req) === WIRE_NAMES.protobufMediaType) return JSON.stringify(decodeProtobufObject(bytes, 'DeleteOptions', apiVersionOf(def)));
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
      const out = await c.registry.delete(def, str(meta['namespace']) ?? '', str(meta['name']) ?? '', { user, ...dopts });
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
async function sendListFast(res: ServerResponse, c: ResourceHandlerContext, def: ResourceDef, namespace: string, o: ListOptions, rc: ResponseContext): Promise<boolean> {
  if (compactJson(rc)) {
    sendJsonText(res, 200, await listJson(c.registry, def, namespace, o), rc);
    return true;
  }
  const encoder = rc.encoder;
  if (encoder?.contentType !== PROTOBUF_MEDIA_TYPE) return false;
  const body = await listProtobuf(c.registry, def, namespace, o);
  if (body === undefined) return false;
  sendEncoded(res, 200, body, { ...rc, encoder });
  return true;
}
