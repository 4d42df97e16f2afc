// plat-apiserver's request pipeline and nothing else: TLS (client certificates requested, not
// required), then for each request, in order: decode the target (path and query, once),
// authenticate, authorize (impersonation included), serve (the streaming proxy, the resource
// handlers, whose registry runs admission, the reviews, OpenAPI, discovery), and encode the
// answer (JSON or protobuf, as negotiated). Every part it asks was built once by start/build.ts.

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { RequestTracer } from './interfaces.js';
import type { Logger } from '../common/log/types.js';
import type { AuthenticatorChain } from './authn/union.js';
import type { AuthorizerChain } from './authz/chain.js';
import { forbiddenMessage, requestAttributes } from './authz/attributes.js';
import { impersonatedUser } from './authn/impersonation.js';
import type { Discovery } from './discovery.js';
import type { ServedVersion } from './version.js';
import { createHttpsServer } from './https-server.js';
import type { ProtobufResponses } from './handlers/protobuf.js';
import { negotiateEncoding, type ResponseEncoding } from './handlers/negotiate.js';
import { readRequestObject } from './handlers/request-object.js';
import type { BodyDecoder } from './handlers/decode-object.js';
import { parseWriteOptions } from './handlers/options.js';
import { handleResource, type ResourceHandlerContext } from './handlers/resource.js';
import { reviewFor, type Review } from './handlers/review-routes.js';
import {
  sendError,
  sendJson,
  sendText,
  statusOf,
  type ResponseContext,
} from './handlers/respond.js';
import type { UserInfo } from '../common/auth/user.js';
import type { ResourceRoutes } from './handlers/routes.js';
import { RequestAbort } from './request-abort.js';
import { parseRequestTarget, rawRequestPath, type RequestTarget } from './request-target.js';
import { Params, wantsPretty } from './params.js';
import type { OpenApi } from './openapi/index.js';
import { answerOpenApi, isOpenApiPath } from './openapi/respond.js';
import { forbidden, methodNotAllowed, StatusError, unauthorized } from './status.js';
import { FlagError } from '../common/util/errors.js';
import {
  FrontListenError,
  newFrontSecret,
  startTlsFronts,
  type TlsFronts,
} from './front/fronts.js';
import { startInnerListener, type InnerListener } from './front/inner-listener.js';
import type { ServingTls } from './front/secure-options.js';

/** How many TLS front processes to start, and the script they run. */
export interface TlsFrontsWanted {
  readonly count: number;
  readonly entry: string;
}

export interface ApiServerOptions {
  readonly platformDomain: string;
  readonly bindAddress: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly tls: ServingTls;
  /**
   * TLS front processes (--tls-processes: at least one) and their script; absent: TLS ends in
   * this process.
   */
  readonly tlsFronts?: TlsFrontsWanted | undefined;
  readonly authn: AuthenticatorChain;
  readonly authorizer: AuthorizerChain;
  readonly routes: ResourceRoutes;
  /** What the resource handlers need: the registry, the limits, and the watch settings. */
  readonly resources: ResourceHandlerContext;
  readonly openapi: OpenApi;
  readonly discovery: Discovery;
  readonly proxy: StreamingProxy;
  readonly protobufResponses: ProtobufResponses;
  readonly tracer?: RequestTracer | undefined;
  readonly maxBodyBytes: number;
  /** Where review bodies are decoded (--worker-threads); default: on the main thread. */
  readonly bodyDecoder?: BodyDecoder | undefined;
  /** What GET /version serves. */
  readonly version: ServedVersion;
  /** --api-audiences: the audiences of tokens authenticated here (see tokenReview). */
  readonly apiAudiences?: readonly string[];
  readonly logger: Logger;
}

/**
 * The streaming subresources (pods/log, exec, attach, portforward, nodes/proxy): proxy/handler.ts.
 */
export interface StreamingProxy {
  handle(c: {
    req: IncomingMessage;
    res: ServerResponse;
    upgrade: { socket: Duplex; head: Buffer } | undefined;
    path: string;
    search: URLSearchParams;
    user: UserInfo;
    readonly signal: AbortSignal;
  }): Promise<boolean>;
}

/**
 * The reason a request's signal is aborted with when its response closes or the server stops:
 * made once, as the default reason (a new AbortError DOMException, stack and all) cost about 1%
 * of a create.
 */
const responseClosed = new DOMException('This operation was aborted', 'AbortError');

const unauthenticatedPaths = new Set(['/healthz', '/livez', '/readyz', '/version']);

/** Health and version: answered without authentication or authorization. */
function isOpenPath(path: string): boolean {
  return (
    unauthenticatedPaths.has(path) ||
    path.startsWith('/healthz/') ||
    path.startsWith('/livez/') ||
    path.startsWith('/readyz/')
  );
}

/** One authorized request on its way to its handler. */
interface Served {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly target: RequestTarget;
  readonly rc: ResponseContext;
  readonly abort: RequestAbort;
  readonly upgrade: { socket: Duplex; head: Buffer } | undefined;
  readonly user: UserInfo;
}

export class ApiServer {
  private readonly o: ApiServerOptions;
  private readonly server: Server;
  /** The requests in progress: a stop aborts each (watches: thousands). */
  private readonly open = new Set<RequestAbort>();
  private stopped = false;
  private address = '';
  private inner: InnerListener | undefined;
  private fronts: TlsFronts | undefined;

  constructor(o: ApiServerOptions) {
    this.o = o;
    this.server = createHttpsServer({
      tls: o.tlsFronts === undefined ? o.tls : undefined,
      logger: o.logger,
      handle: (req, res, upgrade) => this.handle(req, res, upgrade),
    });
  }

  /** Listens on --bind-address:--secure-port; the address it listens on. */
  async listen(): Promise<{ host: string; port: number }> {
    const wanted = this.o.tlsFronts;
    const at =
      wanted === undefined ? await this.listenHere() : await this.listenThroughFronts(wanted);
    const host = at.host.includes(':') ? `[${at.host}]` : at.host;
    this.address = `${host}:${at.port}`;
    return at;
  }

  /** The listener's error as the flags' error: what could not be bound and why. */
  private listenError(err: NodeJS.ErrnoException): FlagError {
    const why =
      err.code === 'EADDRINUSE'
        ? 'the port is in use'
        : err.code === 'EADDRNOTAVAIL'
          ? 'the address is not on this host'
          : err.code === 'EACCES'
            ? 'permission denied'
            : err.message;
    return new FlagError(
      `cannot listen on ${this.o.bindAddress}:${this.o.port} (--bind-address, ` +
        `--secure-port): ${why}`,
      { flag: 'secure-port', cause: err },
    );
  }

  private async listenHere(): Promise<{ host: string; port: number }> {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void => reject(this.listenError(err));
      this.server.once('error', onError);
      this.server.listen(this.o.port, this.o.bindAddress, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    const addr = this.server.address() as AddressInfo;
    return { host: addr.address, port: addr.port };
  }

  /** The fronts listen; their connections reach the HTTP server through the inner socket. */
  private async listenThroughFronts(
    wanted: TlsFrontsWanted,
  ): Promise<{ host: string; port: number }> {
    const secret = newFrontSecret();
    this.inner = await startInnerListener({
      secret,
      handOn: (socket) => this.server.emit('connection', socket),
      refused: (why) => this.o.logger.warn({ why }, 'refused a connection on the inner socket'),
    });
    try {
      this.fronts = await startTlsFronts({
        ...wanted,
        tls: this.o.tls,
        host: this.o.bindAddress,
        port: this.o.port,
        innerPath: this.inner.path,
        secret,
        logger: this.o.logger,
      });
    } catch (err) {
      await this.inner.close();
      throw err instanceof FrontListenError ? this.listenError(err) : err;
    }
    return { host: this.fronts.host, port: this.fronts.port };
  }

  /** Ends every open request and closes the listener (and the TLS fronts). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const c of this.open) c.abort(responseClosed);
    this.open.clear();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    await this.inner?.close();
    await this.fronts?.stop();
  }

  private async handle(
    req: IncomingMessage,
    res: ServerResponse,
    upgrade?: { socket: Duplex; head: Buffer },
  ): Promise<void> {
    const span = this.o.tracer?.startRequestSpan(req);
    let rc: ResponseContext = { pretty: false, warnings: [] };
    const abort = new RequestAbort();
    // A request arriving during a stop is aborted at once, as the ones in progress are.
    if (this.stopped) abort.abort(responseClosed);
    else this.open.add(abort);
    res.on('close', () => {
      abort.abort(responseClosed);
      this.open.delete(abort);
      span?.end(res.statusCode);
    });
    try {
      const target = parseRequestTarget(req.url);
      rc = {
        pretty: wantsPretty(target.search, req.headers['user-agent']),
        warnings: rc.warnings,
        encoder: this.encoderFor(req),
      };
      await this.route(req, res, target, rc, abort, upgrade);
    } catch (err) {
      const status = statusOf(err);
      if (status.code >= 500)
        this.o.logger.error(
          { err, method: req.method, path: rawRequestPath(req.url) },
          'request failed',
        );
      sendError(res, err, rc);
    }
  }

  /** The stages after decoding the target: authenticate, authorize, serve. */
  private async route(
    req: IncomingMessage,
    res: ServerResponse,
    target: RequestTarget,
    rc: ResponseContext,
    abort: RequestAbort,
    upgrade?: { socket: Duplex; head: Buffer },
  ): Promise<void> {
    const method = req.method ?? 'GET';
    const { path } = target;
    if (isOpenPath(path)) {
      // Health and version answer anyone; a credential is still checked when one is given.
      await this.authenticate(req, path, true);
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method);
      if (path === '/version') sendJson(res, 200, this.o.version, rc);
      else sendText(res, 200, 'ok');
      return;
    }
    const authenticated = await this.authenticate(req, path, false);
    const user = await impersonatedUser(
      req,
      authenticated,
      this.o.authorizer,
      `authentication.${this.o.platformDomain}`,
    );
    await this.authorize(method, target, user);
    await this.serve({ req, res, target, rc, abort, upgrade, user });
  }

  /** The user of the request: 401 without one, unless the path is open (then anonymous). */
  private async authenticate(req: IncomingMessage, path: string, open: boolean): Promise<UserInfo> {
    const authn = await this.o.authn.authenticate(req);
    if (authn.ok) return authn.user;
    if (!open) {
      this.o.logger.debug({ path, reason: authn.reason }, 'unauthenticated request');
      throw unauthorized();
    }
    return { username: 'system:anonymous', groups: ['system:unauthenticated'] };
  }

  /** 403 unless the chain allows the request. */
  private async authorize(method: string, target: RequestTarget, user: UserInfo): Promise<void> {
    const attrs = requestAttributes(method, target.path, target.search, user);
    const d = await this.o.authorizer.authorize(attrs);
    if (d.decision === 'allow') return;
    throw forbidden(
      forbiddenMessage(attrs, d.reason),
      attrs.isResourceRequest
        ? { name: attrs.name, group: attrs.apiGroup, kind: attrs.resource }
        : undefined,
    );
  }

  /** The handler of an authorized request: proxy, resources, reviews, OpenAPI, discovery. */
  private async serve(r: Served): Promise<void> {
    const { req, res, target, rc, abort, upgrade, user } = r;
    const method = req.method ?? 'GET';
    const { path, search } = target;
    const call = {
      req,
      res,
      upgrade,
      path,
      search,
      user,
      get signal(): AbortSignal {
        return abort.signal;
      },
    };
    if (await this.o.proxy.handle(call)) return;
    const route = this.o.routes.match(path);
    if (route !== undefined) {
      // 406 for resources and reviews only: discovery and OpenAPI negotiate their own types.
      negotiateEncoding(req.headers.accept);
      await handleResource(this.o.resources, route, req, res, search, user, rc, abort);
      return;
    }
    const review =
      method === 'POST'
        ? reviewFor({ ...this.o, apiAudiences: this.o.apiAudiences ?? [] }, path, user)
        : undefined;
    if (review !== undefined) {
      await this.answerReview(req, res, target, rc, review);
      return;
    }
    if (method !== 'GET' && method !== 'HEAD') throw notFoundPath();
    if (isOpenApiPath(path)) {
      if (!answerOpenApi(this.o.openapi, path, search, req, res)) throw notFoundPath();
      return;
    }
    const doc = this.discoveryDoc(path);
    if (doc === undefined) throw notFoundPath();
    sendJson(res, 200, doc, rc);
  }

  /** A review's body decoded (JSON or protobuf, fieldValidation as a create's) and answered. */
  private async answerReview(
    req: IncomingMessage,
    res: ServerResponse,
    target: RequestTarget,
    rc: ResponseContext,
    review: Review,
  ): Promise<void> {
    negotiateEncoding(req.headers.accept);
    // A review is a create: fieldValidation (Warn by default) applies as to any other.
    const body = await readRequestObject(req, {
      maxBodyBytes: this.o.maxBodyBytes,
      decoder: this.o.bodyDecoder,
      kind: review.kind,
      apiVersion: review.apiVersion,
      version: 'v1',
      fieldValidation: () =>
        parseWriteOptions(
          new Params(target.search, 'W'),
          req,
          'CreateOptions',
          this.o.platformDomain,
        ).fieldValidation,
      warnings: rc.warnings,
    });
    sendJson(res, 201, await review.run(body), rc);
  }

  /**
   * The response encoder the Accept header asks for; an unacceptable Accept is answered by route()
   * (406).
   */
  private encoderFor(req: IncomingMessage): ProtobufResponses | undefined {
    let encoding: ResponseEncoding = 'json';
    try {
      encoding = negotiateEncoding(req.headers.accept);
    } catch {
      encoding = 'json';
    }
    return encoding === 'protobuf' ? this.o.protobufResponses : undefined;
  }

  private discoveryDoc(path: string): unknown {
    if (path === '/api') return this.o.discovery.apiVersions(this.address);
    if (path === '/apis') return this.o.discovery.apiGroupList();
    if (path === '/api/v1') return this.o.discovery.resourceList('', 'v1');
    const m = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(path);
    if (m === null) return undefined;
    const group = m[1] ?? '';
    return m[2] === undefined
      ? this.o.discovery.apiGroup(group)
      : this.o.discovery.resourceList(group, m[2]);
  }
}

function notFoundPath(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}
