// The agent's secure server (--address:--port): TLS from the rotating serving certificate, every
// request authenticated (client certificate, bearer token, anonymous), authorized (AlwaysAllow or
// a SubjectAccessReview) and only then handed to the endpoint table.
//
// HTTP/2 and HTTP/1.1 are both offered (ALPN), as the reference's Go server offers them: the API
// server's clients (logs, stats, metrics) speak HTTP/2 to a node that offers it, and exec, attach
// and portForward upgrade over HTTP/1.1. The API server turns a log read into a WebSocket stream
// for clients that ask so; over HTTP/1.1 it loses a log that arrives whole before it reads it (the
// reference's own kubelet, serving HTTP/2, never meets this), so HTTP/2 is not only parity.

import {
  createSecureServer,
  type Http2SecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
} from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { responseOnUpgrade } from '../../common/util/upgrade-response.js';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../common/log/types.js';
import {
  authorizationErrorMessage,
  forbiddenMessage,
  requestAttributes,
} from './authz/attributes.js';
import { httpError, plainError } from './handlers/respond.js';
import type { NodeHandlers } from './handlers/routes.js';
import type { Clock } from '../../common/util/clock.js';
import {
  MAX_HEADER_BYTES,
  SERVER_TIMEOUTS,
  capConnectionAge,
  listen,
  stopServer,
  MAX_CONNECTION_AGE_MS,
} from './listen.js';
import { answerClientErrors } from '../../common/util/client-errors.js';
import type { NodeAgentMetrics } from './metrics.js';
import { RotatingSecureContext, cipherString, tlsMinVersion } from './tls.js';
import type {
  Authenticator,
  Authorizer,
  RequestAttributes,
  ServingTlsSource,
  UserInfo,
} from './types.js';
import { userMessage } from '../../common/util/errors.js';

export interface SecureServerOptions {
  /** Connection age and drain timers (default the system clock). */
  clock?: Clock;
  address: string;
  port: number;
  nodeName: string;
  tls: ServingTlsSource;
  /** --tls-min-version (VersionTLS12 ...); empty: TLS 1.2. */
  tlsMinVersion?: string;
  /** --tls-cipher-suites already mapped to OpenSSL names; empty: the runtime default. */
  tlsCipherSuites?: readonly string[];
  authenticator: Authenticator;
  authorizer: Authorizer;
  handlers: NodeHandlers;
  enableDebuggingHandlers: boolean;
  metrics: NodeAgentMetrics;
  logger: Logger;
  /** Default 4 h, the reference's cap; tests shorten it. */
  maxConnectionAgeMs?: number;
  /** tracing: one span per request (absent: none). */
  tracer?: RequestSpans;
}

/** Per-request spans (src/common/tracing/request-tracer.ts). */
export interface RequestSpans {
  startRequestSpan(req: IncomingMessage): { end(statusCode: number): void };
}

/**
 * The request and response as the handlers take them. HTTP/1.1 requests arrive as Node's own
 * objects; HTTP/2 ones as the compatibility API's, which have what the handlers use (method, url,
 * headers, the body stream; status, headers, write, end, destroy, setTimeout, their events).
 * Upgrades, the one path that needs the socket, only exist over HTTP/1.1.
 */
function asHttp1(
  req: Http2ServerRequest | IncomingMessage,
  res: Http2ServerResponse | ServerResponse,
): { req: IncomingMessage; res: ServerResponse } {
  return { req: req as IncomingMessage, res: res as ServerResponse };
}

export class SecureServer {
  private readonly server: Http2SecureServer;
  private readonly context: RotatingSecureContext;
  private info: AddressInfo | undefined;

  constructor(private readonly options: SecureServerOptions) {
    this.context = new RotatingSecureContext({
      source: options.tls,
      settings: {
        minVersion: tlsMinVersion(options.tlsMinVersion),
        ciphers: cipherString(options.tlsCipherSuites),
      },
    });
    this.server = this.createHttpsServer();
    this.followRotations();
    this.serveUpgrades();
    capConnectionAge(
      this.server,
      options.maxConnectionAgeMs ?? MAX_CONNECTION_AGE_MS,
      options.clock,
    );
    answerClientErrors(this.server, options.clock);
    this.server.on('tlsClientError', (err: Error) =>
      options.logger.debug({ err: err.message }, 'TLS handshake failed'),
    );
  }

  /** The HTTPS server: any client certificate is asked for (authentication judges it). */
  private createHttpsServer(): Http2SecureServer {
    const initial = this.context.poll().material;
    const server = createSecureServer(
      {
        ...this.context.contextOptions(initial),
        allowHTTP1: true,
        settings: { maxHeaderListSize: MAX_HEADER_BYTES },
        requestCert: true,
        rejectUnauthorized: false,
        SNICallback: (_name, cb) => {
          try {
            cb(null, this.context.secureContext());
          } catch (err) {
            cb(err instanceof Error ? err : new Error(userMessage(err)), undefined);
          }
        },
      },
      (h2req, h2res) => {
        const { req, res } = asHttp1(h2req, h2res);
        this.serve(req, res).catch((err: unknown) => {
          this.options.logger.error(
            { err: userMessage(err), path: req.url },
            'request handler failed',
          );
          httpError(res, 500, 'Internal Server Error');
        });
      },
    );
    // HTTP/1.1 connections are served by Node's HTTP/1 code, which reads these from the server
    Object.assign(server, SERVER_TIMEOUTS);
    return server;
  }

  /**
   * Before the TLS listener builds the connection's socket, pick up a rotated certificate so
   * clients that send no SNI (connections by IP) get the new one too.
   */
  private followRotations(): void {
    const logger = this.options.logger;
    this.server.prependListener('connection', () => {
      try {
        const { material, changed } = this.context.poll();
        if (changed) {
          this.server.setSecureContext(this.context.contextOptions(material));
          logger.info({}, 'serving certificate changed; new connections use the new certificate');
        }
      } catch (err) {
        logger.error(
          { err: userMessage(err) },
          'cannot load the rotated serving certificate; keeping the previous one',
        );
      }
    });
  }

  /**
   * Upgrades (exec, attach, portForward) go through the same authentication and authorization;
   * a response object on the raw socket lets every refusal be an ordinary HTTP answer.
   */
  private serveUpgrades(): void {
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const res = responseOnUpgrade(req, socket);
      this.serve(req, res, { socket, head }).catch((err: unknown) => {
        this.options.logger.error(
          { err: userMessage(err), path: req.url },
          'upgrade handler failed',
        );
        if (!res.headersSent) httpError(res, 500, 'Internal Server Error');
        else socket.destroy();
      });
    });
  }

  async start(): Promise<AddressInfo> {
    this.info = await listen(
      this.server,
      this.options.address,
      this.options.port,
      'agent server (--address, --port)',
    );
    this.options.logger.info(
      { address: this.info.address, port: this.info.port },
      'agent server listening (HTTPS)',
    );
    return this.info;
  }

  stop(): Promise<void> {
    return stopServer(this.server);
  }

  /** Counts the request in the metrics when answered, and traces it when tracing is on. */
  private observe(req: IncomingMessage, res: ServerResponse): void {
    const o = this.options;
    const verb = (req.method ?? 'GET').toLowerCase();
    res.once('finish', () =>
      o.metrics.serverRequests.inc({ code: String(res.statusCode), server: 'secure', verb }),
    );
    const span = o.tracer?.startRequestSpan(req);
    if (span !== undefined) res.once('close', () => span.end(res.statusCode));
  }

  /** The request's user; undefined when it was answered 401 or 500. */
  private async authenticate(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
  ): Promise<UserInfo | undefined> {
    const o = this.options;
    let authn;
    try {
      authn = await o.authenticator.authenticate(req);
    } catch (err) {
      o.logger.warn(
        { err: userMessage(err), path: url.pathname },
        'cannot authenticate the request; answering 500',
      );
      plainError(res, 500, `Authentication error: ${userMessage(err)}`);
      return undefined;
    }
    if (authn.kind === 'authenticated') return authn.user;
    o.logger.debug(
      { reason: authn.kind === 'rejected' ? authn.reason : 'no credentials', path: url.pathname },
      'unauthorized request',
    );
    plainError(res, 401, 'Unauthorized');
    return undefined;
  }

  /** Whether the request may go on; when not, it was answered 403 or 500. */
  private async authorize(
    res: ServerResponse,
    attrs: RequestAttributes,
    url: URL,
  ): Promise<boolean> {
    const o = this.options;
    let decision;
    try {
      decision = await o.authorizer.authorize(attrs);
    } catch (err) {
      o.logger.warn(
        { err: userMessage(err), user: attrs.user.username, path: url.pathname },
        'cannot authorize the request; answering 500',
      );
      plainError(res, 500, authorizationErrorMessage(attrs, userMessage(err)));
      return false;
    }
    if (decision.allowed) return true;
    o.logger.debug(
      {
        user: attrs.user.username,
        verb: attrs.verb,
        subresource: attrs.subresource,
        reason: decision.reason,
      },
      'forbidden request',
    );
    plainError(res, 403, forbiddenMessage(attrs));
    return false;
  }

  private async serve(
    req: IncomingMessage,
    res: ServerResponse,
    upgrade?: { socket: Duplex; head: Buffer },
  ): Promise<void> {
    const o = this.options;
    this.observe(req, res);
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'https://node.invalid');
    } catch {
      httpError(res, 400, 'malformed request URL');
      return;
    }
    const user = await this.authenticate(req, res, url);
    if (user === undefined) return;
    // An upgrade (exec, attach, portForward) is authorized as create, whatever its method.
    const method = upgrade !== undefined ? 'POST' : (req.method ?? 'GET');
    const attrs = requestAttributes(user, method, url.pathname, o.nodeName);
    if (!(await this.authorize(res, attrs, url))) return;
    await o.handlers.handle(
      req,
      res,
      url,
      o.enableDebuggingHandlers ? 'debug' : 'debug-disabled',
      upgrade,
    );
  }
}
