// plat-apiserver's HTTPS server: TLS (client certificates requested, not required), the request
// pipeline (tracing, authentication, authorization, routing), and the non-resource endpoints
// (health, version, discovery, reviews). Resources go to handlers/resource.ts.

import { WIRE_NAMES, namesFor, type Names } from '../common/names.js';
import type { Server } from 'node:https';
import { setMaxListeners } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type {
  AdmissionPlugin,
  Authenticator,
  Authorizer,
  RequestTracer,
  TransformerRegistry,
} from './interfaces.js';
import { everyMs, type Clock } from '../common/util/clock.js';
import type { Logger } from '../common/log/types.js';
import { AuthenticatorChain, AuthorizerChain } from './auth/chain.js';
import { forbiddenMessage, requestAttributes } from './auth/attributes.js';
import { Discovery, servedGroups, versionInfo } from './discovery.js';
import { createHttpsServer } from './https-server.js';
import { readBodyBytes, requireObjectMediaType } from './handlers/body.js';
import { decodeProtobufObject, ProtobufResponses } from './handlers/protobuf.js';
import { negotiateEncoding, type ResponseEncoding } from './handlers/negotiate.js';
import { applyFieldValidation, decodeObject } from './handlers/decode-object.js';
import { parseWriteOptions } from './handlers/options.js';
import { handleResource, type ResourceHandlerContext } from './handlers/resource.js';
import {
  sendError,
  sendJson,
  sendText,
  statusOf,
  type ResponseContext,
} from './handlers/respond.js';
import { subjectAccessReview, tokenReview } from './handlers/reviews.js';
import {
  selfSubjectAccessReview,
  selfSubjectReview,
  selfSubjectRulesReview,
} from './handlers/self-reviews.js';
import { impersonatedUser } from './auth/impersonation.js';
import type { LateModes } from './authz/modes.js';
import { Rbac } from './rbac/index.js';
import type { UserInfo } from '../common/auth/user.js';
import { ResourceRoutes } from './handlers/routes.js';
import { parseRequestTarget, rawRequestPath, type RequestTarget } from './request-target.js';
import { Params, wantsPretty } from './params.js';
import { OpenApi } from './openapi/index.js';
import { reviewEndpoints } from './openapi/catalog.js';
import { answerOpenApi, isOpenApiPath } from './openapi/respond.js';
import type { ManagedFieldsUpdater } from './registry/managed-fields.js';
import { Registry } from './registry/registry.js';
import { configMapDef } from './registry/resources/configmap.js';
import { csrDef } from './registry/resources/csr.js';
import { eventDef } from './registry/resources/event.js';
import { eventsV1Def } from './registry/resources/events-v1.js';
import { leaseDef } from './registry/resources/lease.js';
import { namespaceDef } from './registry/resources/namespace.js';
import { nodeDef } from './registry/resources/node.js';
import { podDef } from './registry/resources/pod.js';
import { secretDef } from './registry/resources/secret.js';
import type { ResourceDef } from './registry/types.js';
import type { SubresourceActions } from './handlers/actions.js';
import { forbidden, methodNotAllowed, StatusError, unauthorized } from './status.js';
import { Store } from './storage/store.js';
import { FlagError } from '../common/util/errors.js';

export interface ApiServerOptions {
  readonly platformDomain: string;
  /** The profile's names; default: the platform profile's in platformDomain (whose group domain wins). */
  readonly names?: Names;
  readonly bindAddress: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly tls: {
    readonly certPem: string;
    readonly keyPem: string;
    readonly clientCaPems: readonly string[];
  };
  /** Undefined: in memory. */
  readonly dataDir: string | undefined;
  /** Tried in order (x509 client certificates, token file, then plugged-in ones such as JWT). */
  readonly authenticators: readonly Authenticator[];
  readonly anonymousAuth: boolean;
  /** Tried in order after the system:masters rule; the first allow or deny decides. */
  readonly authorizers: readonly Authorizer[];
  /** The RBAC mode of `authorizers` is bound to this server's RBAC once its storage exists. */
  readonly lateModes?: LateModes;
  readonly admission: readonly AdmissionPlugin[];
  readonly transformers: TransformerRegistry;
  readonly tracer?: RequestTracer | undefined;
  readonly managedFields: ManagedFieldsUpdater;
  readonly featureGates: { readonly ShardedListAndWatch: boolean };
  readonly minRequestTimeoutSeconds: number;
  readonly compactionIntervalMs: number;
  readonly watchCacheSize: number;
  readonly bookmarkIntervalMs?: number;
  readonly maxBodyBytes: number;
  /** Resources another part serves (pod-support.ts), with their POST-only subresources. */
  readonly extraResources?: {
    readonly defs: readonly ResourceDef[];
    readonly actions: SubresourceActions;
  };
  /** --api-audiences: the audiences of tokens authenticated here (see tokenReview). */
  readonly apiAudiences?: readonly string[];
  readonly clock: Clock;
  readonly logger: Logger;
}

/** The streaming subresources (pods/log, exec, attach, portforward, nodes/proxy): proxy/handler.ts. */
export interface StreamingProxy {
  handle(c: {
    req: IncomingMessage;
    res: ServerResponse;
    upgrade: { socket: Duplex; head: Buffer } | undefined;
    path: string;
    search: URLSearchParams;
    user: UserInfo;
    signal: AbortSignal;
  }): Promise<boolean>;
}

/** The resource kinds this server serves under the profile's names (RBAC's come from Rbac). */
function resourceDefs(names: Names): ApiServer['defs'] {
  return {
    csr: csrDef(names.groupDomain, names.signers.legacyUnknown),
    event: eventDef,
    eventsV1: eventsV1Def(names),
    node: nodeDef,
    pod: podDef,
    namespace: namespaceDef,
    secret: secretDef,
    configMap: configMapDef,
    lease: leaseDef(names.groups.coordination),
  };
}

/** What the resource handlers need: the registry, the limits, and the watch settings. */
function handlerContext(
  o: ApiServerOptions,
  platformDomain: string,
  registry: Registry,
  authorizer: Authorizer,
): ResourceHandlerContext {
  return {
    registry,
    ...(o.extraResources === undefined ? {} : { actions: o.extraResources.actions }),
    platformDomain,
    maxBodyBytes: o.maxBodyBytes,
    shardingEnabled: o.featureGates.ShardedListAndWatch,
    authorizer,
    clock: o.clock,
    watch: {
      platformDomain,
      minRequestTimeoutSeconds: o.minRequestTimeoutSeconds,
      bookmarkIntervalMs: o.bookmarkIntervalMs ?? 5000,
      maxQueue: Math.max(1000, o.watchCacheSize * 100),
      logger: o.logger,
      clock: o.clock,
    },
  };
}

/**
 * The reason every request's signal is aborted with when its response closes: made once, as the
 * default reason (a new AbortError DOMException, stack and all) cost about 1% of a create.
 */
const responseClosed = new DOMException('This operation was aborted', 'AbortError');

const unauthenticatedPaths = new Set(['/healthz', '/livez', '/readyz', '/version']);

export class ApiServer {
  readonly registry: Registry;
  readonly store: Store;
  readonly authorizer: AuthorizerChain;
  readonly authn: AuthenticatorChain;
  readonly rbac: Rbac;
  readonly defs: {
    readonly csr: ResourceDef;
    readonly event: ResourceDef;
    /** events.k8s.io/v1 Event, over the core Events' storage. */
    readonly eventsV1: ResourceDef;
    readonly node: ResourceDef;
    readonly pod: ResourceDef;
    readonly namespace: ResourceDef;
    readonly secret: ResourceDef;
    readonly configMap: ResourceDef;
    readonly lease: ResourceDef;
  };
  readonly names: Names;
  private readonly o: ApiServerOptions;
  private readonly server: Server;
  private readonly routes: ResourceRoutes;
  private readonly discovery: Discovery;
  readonly openapi: OpenApi;
  private readonly handlerCtx: ResourceHandlerContext;
  private readonly protobufResponses: ProtobufResponses;
  private readonly stopController = new AbortController();
  private stopCompaction: (() => void) | undefined;
  private address = '';
  private proxy: StreamingProxy | undefined;

  constructor(o: ApiServerOptions) {
    this.o = o;
    // Every open request (watches: thousands) listens for the server stopping.
    setMaxListeners(0, this.stopController.signal);
    const names = o.names ?? namesFor('platform', o.platformDomain);
    this.names = names;
    const d = names.groupDomain;
    this.defs = resourceDefs(names);
    this.store = new Store({
      dataDir: o.dataDir,
      transformers: o.transformers,
      logger: o.logger,
      clock: o.clock,
      compactionIntervalMs: o.compactionIntervalMs,
    });
    this.rbac = new Rbac({ platformDomain: d, names, store: this.store, logger: o.logger });
    o.lateModes?.rbac.bind(this.rbac.authorizer);
    this.authorizer = new AuthorizerChain({ authorizers: o.authorizers });
    const admission = [...o.admission, this.rbac.escalationCheck(this.authorizer)];
    this.registry = new Registry({
      store: this.store,
      platformDomain: d,
      names,
      clock: o.clock,
      logger: o.logger,
      admission,
      managedFields: o.managedFields,
    });
    const extraDefs = o.extraResources?.defs ?? [];
    const all = [...Object.values(this.defs), ...extraDefs, ...this.rbac.resources];
    // A view shares its storage resource's keys: their namespace clean-up runs once.
    this.registry.namespacedPrefixes = all
      .filter((x) => x.namespaced && x.view === undefined)
      .map((x) => this.registry.prefix(x, ''));
    this.routes = new ResourceRoutes(all);
    this.openapi = new OpenApi({
      defs: all,
      reviews: reviewEndpoints(names.groups),
      title: names.profile === 'kubernetes' ? 'Kubernetes' : 'plat-apiserver',
      version: (versionInfo() as { gitVersion: string }).gitVersion,
      clock: o.clock,
      names,
      logger: o.logger,
    });
    if (this.openapi.undocumented.length > 0)
      o.logger.warn(
        { resources: this.openapi.undocumented },
        'resources without a schema in schema/kinds.ts are left out of /openapi/v2 and /openapi/v3',
      );
    const { defs } = this;
    this.discovery = new Discovery({
      groups: servedGroups(names.groups, {
        core: [
          ...[defs.namespace, defs.event, defs.node, defs.pod, defs.secret, defs.configMap],
          ...extraDefs.filter((x) => x.group === ''),
        ],
        eventsV1: defs.eventsV1,
        csr: defs.csr,
        lease: defs.lease,
        rbacGroup: this.rbac.names.group,
        rbac: this.rbac.resources,
      }),
    });
    this.authn = new AuthenticatorChain({
      authenticators: o.authenticators,
      anonymous: o.anonymousAuth,
    });
    this.protobufResponses = new ProtobufResponses({ logger: o.logger });
    this.handlerCtx = handlerContext(o, d, this.registry, this.authorizer);
    this.server = createHttpsServer({
      tls: o.tls,
      logger: o.logger,
      handle: (req, res, upgrade) => this.handle(req, res, upgrade),
    });
  }

  /** Serves the streaming subresources through this proxy (set before start). */
  useProxy(proxy: StreamingProxy): void {
    this.proxy = proxy;
  }

  /** Creates the `default` and `kube-system` namespaces when absent. */
  private async bootstrapNamespaces(): Promise<void> {
    const system = { username: 'system:apiserver', groups: ['system:masters'] };
    const ns = this.names.namespaces;
    for (const name of ['default', ns.system, ns.public, ns.nodeLease]) {
      if (this.store.getRaw(this.registry.key(this.defs.namespace, '', name)) !== undefined)
        continue;
      await this.registry.create(
        this.defs.namespace,
        '',
        { metadata: { name } },
        { user: system, dryRun: false, fieldManager: 'plat-apiserver', subresource: '' },
      );
    }
  }

  async start(): Promise<{ host: string; port: number }> {
    await this.bootstrapNamespaces();
    await this.rbac.start(this.registry, this.stopController.signal);
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void => {
        const why =
          err.code === 'EADDRINUSE'
            ? 'the port is in use'
            : err.code === 'EADDRNOTAVAIL'
              ? 'the address is not on this host'
              : err.code === 'EACCES'
                ? 'permission denied'
                : err.message;
        reject(
          new FlagError(
            `cannot listen on ${this.o.bindAddress}:${this.o.port} (--bind-address, --secure-port): ${why}`,
            { flag: 'secure-port', cause: err },
          ),
        );
      };
      this.server.once('error', onError);
      this.server.listen(this.o.port, this.o.bindAddress, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    const addr = this.server.address() as AddressInfo;
    this.address = `${addr.address.includes(':') ? `[${addr.address}]` : addr.address}:${addr.port}`;
    // --etcd-compaction-interval=0 disables compaction, as the reference's flag does.
    if (this.o.compactionIntervalMs > 0) {
      const interval = Math.max(
        1000,
        Math.min(60_000, Math.floor(this.o.compactionIntervalMs / 5)),
      );
      this.stopCompaction = everyMs(
        this.o.clock,
        interval,
        () => {
          try {
            this.store.compact();
          } catch (err) {
            this.o.logger.error(
              { err },
              'storage compaction failed; old revisions are kept until the next attempt',
            );
          }
        },
        { unref: true },
      );
    }
    return { host: addr.address, port: addr.port };
  }

  async stop(): Promise<void> {
    this.stopController.abort();
    this.stopCompaction?.();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    await this.o.tracer?.shutdown();
    this.rbac.stop();
    this.store.close();
  }

  private async handle(
    req: IncomingMessage,
    res: ServerResponse,
    upgrade?: { socket: Duplex; head: Buffer },
  ): Promise<void> {
    const span = this.o.tracer?.startRequestSpan(req);
    let rc: ResponseContext = { pretty: false, warnings: [] };
    const abort = new AbortController();
    const onStop = (): void => abort.abort();
    this.stopController.signal.addEventListener('abort', onStop, { once: true });
    res.on('close', () => {
      abort.abort(responseClosed);
      this.stopController.signal.removeEventListener('abort', onStop);
      span?.end(res.statusCode);
    });
    try {
      const target = parseRequestTarget(req.url);
      rc = {
        pretty: wantsPretty(target.search, req.headers['user-agent']),
        warnings: rc.warnings,
        encoder: this.encoderFor(req),
      };
      await this.route(req, res, target, rc, abort.signal, upgrade);
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

  private async route(
    req: IncomingMessage,
    res: ServerResponse,
    target: RequestTarget,
    rc: ResponseContext,
    signal: AbortSignal,
    upgrade?: { socket: Duplex; head: Buffer },
  ): Promise<void> {
    const method = req.method ?? 'GET';
    const { path } = target;
    const open =
      unauthenticatedPaths.has(path) ||
      path.startsWith('/healthz/') ||
      path.startsWith('/livez/') ||
      path.startsWith('/readyz/');
    const authn = await this.authn.authenticate(req);
    if (!authn.ok && !open) {
      this.o.logger.debug({ path, reason: authn.reason }, 'unauthenticated request');
      throw unauthorized();
    }
    const authenticated = authn.ok
      ? authn.user
      : { username: 'system:anonymous', groups: ['system:unauthenticated'] };
    const user = open
      ? authenticated
      : await impersonatedUser(
          req,
          authenticated,
          this.authorizer,
          `authentication.${this.o.platformDomain}`,
        );
    if (!open) {
      const attrs = requestAttributes(method, path, target.search, user);
      const d = await this.authorizer.authorize(attrs);
      if (d.decision !== 'allow') {
        throw forbidden(
          forbiddenMessage(attrs, d.reason),
          attrs.isResourceRequest
            ? { name: attrs.name, group: attrs.apiGroup, kind: attrs.resource }
            : undefined,
        );
      }
    }
    if (open) {
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method);
      if (path === '/version') sendJson(res, 200, versionInfo(), rc);
      else sendText(res, 200, 'ok');
      return;
    }
    if (
      this.proxy !== undefined &&
      (await this.proxy.handle({ req, res, upgrade, path, search: target.search, user, signal }))
    )
      return;
    const route = this.routes.match(path);
    if (route !== undefined) {
      // 406 for resources and reviews only: discovery and OpenAPI negotiate their own types.
      negotiateEncoding(req.headers.accept);
      await handleResource(this.handlerCtx, route, req, res, target.search, user, rc, signal);
      return;
    }
    const review = method === 'POST' ? this.reviewFor(path, user) : undefined;
    if (review !== undefined) {
      negotiateEncoding(req.headers.accept);
      const contentType = requireObjectMediaType(req);
      const raw = await readBodyBytes(req, this.o.maxBodyBytes);
      let body: Record<string, unknown>;
      if (contentType === WIRE_NAMES.protobufMediaType)
        body = decodeProtobufObject(raw, review.kind, review.apiVersion);
      else {
        // A review is a create: fieldValidation (Warn by default) applies as to any other.
        const decoded = decodeObject({
          body: raw.toString('utf8'),
          contentType,
          kind: review.kind,
          apiVersion: review.apiVersion,
        });
        const { fieldValidation } = parseWriteOptions(
          new Params(target.search, 'W'),
          req,
          'CreateOptions',
          this.o.platformDomain,
        );
        applyFieldValidation(decoded, fieldValidation, review.kind, 'v1', rc.warnings);
        body = decoded.object;
      }
      sendJson(res, 201, await review.run(body), rc);
      return;
    }
    if (method !== 'GET' && method !== 'HEAD') throw notFoundPath();
    if (isOpenApiPath(path)) {
      if (!answerOpenApi(this.openapi, path, target.search, req, res)) throw notFoundPath();
      return;
    }
    const doc = this.discoveryDoc(path);
    if (doc === undefined) throw notFoundPath();
    sendJson(res, 200, doc, rc);
  }

  /** The response encoder the Accept header asks for; an unacceptable Accept is answered by route() (406). */
  private encoderFor(req: IncomingMessage): ProtobufResponses | undefined {
    let encoding: ResponseEncoding = 'json';
    try {
      encoding = negotiateEncoding(req.headers.accept);
    } catch {
      encoding = 'json';
    }
    return encoding === 'protobuf' ? this.protobufResponses : undefined;
  }

  /** The review endpoints: POST of a review object answered at once, nothing stored. */
  private reviewFor(
    path: string,
    user: UserInfo,
  ):
    | {
        kind: string;
        apiVersion: string;
        run: (body: Record<string, unknown>) => Promise<Record<string, unknown>>;
      }
    | undefined {
    const d = this.o.platformDomain;
    const authn = `authentication.${d}`;
    const authz = `authorization.${d}`;
    const m = /^\/apis\/([^/]+)\/v1\/(?:namespaces\/([^/]+)\/)?([a-z]+)$/.exec(path);
    const group = m?.[1];
    const namespace = m?.[2];
    const resource = m?.[3];
    if (group === authz && resource === 'localsubjectaccessreviews' && namespace !== undefined) {
      return {
        kind: 'LocalSubjectAccessReview',
        apiVersion: `${authz}/v1`,
        run: (b) => subjectAccessReview(b, this.authorizer, d, { namespace }),
      };
    }
    if (namespace !== undefined) return undefined;
    if (group === authn && resource === 'tokenreviews')
      return {
        kind: 'TokenReview',
        apiVersion: `${authn}/v1`,
        run: (b) => tokenReview(b, this.authn, d, this.o.apiAudiences ?? []),
      };
    if (group === authn && resource === 'selfsubjectreviews')
      return {
        kind: 'SelfSubjectReview',
        apiVersion: `${authn}/v1`,
        run: () => Promise.resolve(selfSubjectReview(user, authn)),
      };
    if (group === authz && resource === 'subjectaccessreviews')
      return {
        kind: 'SubjectAccessReview',
        apiVersion: `${authz}/v1`,
        run: (b) => subjectAccessReview(b, this.authorizer, d),
      };
    if (group === authz && resource === 'selfsubjectaccessreviews') {
      return {
        kind: 'SelfSubjectAccessReview',
        apiVersion: `${authz}/v1`,
        run: (b) => selfSubjectAccessReview(b, user, this.authorizer, authz),
      };
    }
    if (group === authz && resource === 'selfsubjectrulesreviews') {
      return {
        kind: 'SelfSubjectRulesReview',
        apiVersion: `${authz}/v1`,
        run: (b) => selfSubjectRulesReview(b, user, this.authorizer, authz),
      };
    }
    return undefined;
  }

  private discoveryDoc(path: string): unknown {
    if (path === '/api') return this.discovery.apiVersions(this.address);
    if (path === '/apis') return this.discovery.apiGroupList();
    if (path === '/api/v1') return this.discovery.resourceList('', 'v1');
    const m = /^\/apis\/([^/]+)(?:\/([^/]+))?$/.exec(path);
    if (m === null) return undefined;
    const group = m[1] ?? '';
    return m[2] === undefined
      ? this.discovery.apiGroup(group)
      : this.discovery.resourceList(group, m[2]);
  }
}

function notFoundPath(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}
