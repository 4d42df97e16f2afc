// The REST client every part of the agent uses to talk to the API server, over undici.
//
// - TLS: CA, client certificate and key, server name, insecure flag from the platconfig.
//   `setClientCertificate` swaps the certificate on rotation: new pools are built and the old
//   ones destroyed, so pooled connections close and new ones present the new certificate
//   (in-flight calls fail with a connection error and are retried; watches resume).
// - Two connection pools (pools.ts): calls share a bounded one; each watch holds a connection of
//   its own for as long as it runs, so watches never queue the calls behind them.
// - Rate limits: one token bucket for --plat-api-qps/--plat-api-burst; event and heartbeat
//   calls use their own limiters (unlimited unless given).
// - Retries on 429, 5xx and connection errors with jittered exponential back-off, honouring
//   Retry-After, bounded by the retry policy and abortable.
// - Errors: Status bodies become ApiError(status, reason, details).
// - Content type (protobuf-wire.ts): with a protobuf --plat-api-content-type (the default), bodies
//   are sent and answers taken in the reference's protobuf encoding, falling back to JSON for a
//   kind or server that answers 415/406; watch frames become the JSON lines watch.ts reads.
import type { Dispatcher } from 'undici';
import { request } from './undici-core.js';
import { buildPools, destroyPools, type Pools } from './pools.js';
import type { Readable } from 'node:stream';
import { X509Certificate } from 'node:crypto';
import { ApiError, NodeAgentError, userMessage } from '../../common/util/errors.js';
import { afterMs, systemClock, type Clock } from '../../common/util/clock.js';
import { silentLogger, type Logger } from '../../common/log/types.js';
import { apiLimiter, unlimited, type RateLimiter } from './rate-limiter.js';
import {
  defaultRetryPolicy,
  isRetryableStatus,
  parseRetryAfter,
  retryDelayMs,
  type RetryPolicy,
} from './backoff.js';
import { isStatus } from './types.js';
import { recordOf } from '../../common/util/json-shape.js';
import {
  ContentTypes,
  loadCodecFor,
  mediaTypeOf,
  WatchFramesToJsonLines,
  type EncodedBody,
} from './protobuf-wire.js';
import { PROTOBUF_WATCH_MEDIA_TYPE } from '../../common/protobuf/media-types.js';
import type { ConnectionConfig } from '../../common/platconfig/platconfig.js';
import { WIRE_NAMES } from '../../common/names.js';

export type RequestPriority = 'default' | 'event' | 'heartbeat';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RestClientOptions {
  connection: ConnectionConfig;
  clock?: Clock;
  logger?: Logger;
  /** --plat-api-qps / --plat-api-burst; 0 or unset means 50 / 100. */
  qps?: number;
  burst?: number;
  /** Limiters for calls excluded from qps/burst; unlimited when unset. */
  eventLimiter?: RateLimiter;
  heartbeatLimiter?: RateLimiter;
  /** --plat-api-content-type: the preferred response type. */
  contentType?: string;
  userAgent?: string;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt timeout for ordinary calls (not watches). */
  requestTimeoutMs?: number;
  random?: () => number;
  /**
   * Connections for ordinary calls (default 32). A client that makes one call at a time (TLS
   * bootstrap) takes 1: a pool of more opens a second connection for the call right after the
   * first, while the first is still being marked free (a TLS handshake more on both sides).
   */
  callConnections?: number;
}

export interface RequestOptions {
  method?: HttpMethod;
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Content-Type of the body; JSON unless a patch type is given. */
  bodyContentType?: string;
  signal?: AbortSignal;
  priority?: RequestPriority;
  /** false: one attempt only. */
  retry?: boolean;
  timeoutMs?: number;
}

/** What one attempt of a call came to. */
type Attempt =
  | { readonly kind: 'done'; readonly res: Dispatcher.ResponseData }
  | { readonly kind: 'fallback' }
  | { readonly kind: 'retry'; readonly failure: unknown; readonly retryAfterMs?: number };

export interface StreamResponse {
  body: Readable;
  status: number;
}

const JSON_TYPE = 'application/json';

/** The CN of a PEM certificate, for messages; undefined when it cannot be read. */
function commonNameOf(certPem: string): string | undefined {
  try {
    return /(?:^|\n)CN=([^\n]*)/.exec(new X509Certificate(certPem).subject)?.[1];
  } catch {
    return undefined;
  }
}

export function describeIdentity(c: ConnectionConfig, certSubject?: string): string {
  if (c.certPem) certSubject ??= commonNameOf(c.certPem);
  if (c.certPem)
    return (
      `client certificate${certSubject ? ` "${certSubject}"` : ''} of user "${c.userName}` +
      `" in ${c.source}`
    );
  if (c.token) {
    // Bootstrap tokens are "<id>.<secret>": the id is public and names the identity.
    const id = /^([a-z0-9]{6})\.[a-z0-9]{16}$/.exec(c.token)?.[1];
    return id
      ? `bootstrap token "${id}" (user "system:bootstrap:${id}") of user "${c.userName}" ` +
          `in ${c.source}`
      : `bearer token of user "${c.userName}" in ${c.source}`;
  }
  return `anonymous user (no credential in ${c.source})`;
}

export class RestClient {
  readonly server: string;
  private connection: ConnectionConfig;
  private pools: Pools;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly limiters: Record<RequestPriority, RateLimiter>;
  private readonly contentTypes: ContentTypes;
  private readonly userAgent: string;
  private readonly retryPolicy: RetryPolicy;
  private readonly requestTimeoutMs: number;
  private readonly random: () => number;
  private readonly callConnections: number | undefined;
  private identity: string;
  private closed = false;
  private readonly closedController = new AbortController();

  constructor(options: RestClientOptions) {
    this.connection = options.connection;
    this.server = options.connection.server;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger();
    this.limiters = {
      default: apiLimiter(options.qps, options.burst, this.clock),
      event: options.eventLimiter ?? unlimited,
      heartbeat: options.heartbeatLimiter ?? unlimited,
    };
    this.contentTypes = new ContentTypes({ contentType: options.contentType, logger: this.logger });
    this.userAgent = options.userAgent ?? 'nodeagent';
    this.retryPolicy = { ...defaultRetryPolicy, ...options.retry };
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.random = options.random ?? Math.random;
    this.identity = describeIdentity(options.connection);
    this.callConnections = options.callConnections;
    this.pools = buildPools(options.connection, this.callConnections);
  }

  /** The connection in use (server, CA, current credentials). */
  get connectionConfig(): ConnectionConfig {
    return this.connection;
  }

  /** Who the server sees, for messages about refused calls (never includes secrets). */
  get identityDescription(): string {
    return this.identity;
  }

  /**
   * Presents a new client certificate from now on. Pooled connections of the old one are
   * closed so no call keeps using the old certificate.
   */
  setClientCertificate(certPem: string, keyPem: string, subject?: string): void {
    const next: ConnectionConfig = { ...this.connection, certPem, keyPem };
    delete next.token;
    delete next.tokenFile;
    this.connection = next;
    this.identity = describeIdentity(next, subject);
    const old = this.pools;
    this.pools = buildPools(next, this.callConnections);
    destroyPools(old).catch((err: unknown) =>
      this.logger.debug({ err }, 'closing the previous API connection pool failed'),
    );
    this.logger.info(
      'API client switched to the new client certificate; previous connections closed',
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closedController.abort(new Error('API client closed'));
    await destroyPools(this.pools);
  }

  /** Aborts when the client is closed, so parts built around it can stop with it. */
  get closedSignal(): AbortSignal {
    return this.closedController.signal;
  }

  private url(path: string, query: RequestOptions['query']): string {
    const u = new URL(this.server + path);
    for (const [k, v] of Object.entries(query ?? {}))
      if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  private headers(bodyType: string | undefined): Record<string, string> {
    const h: Record<string, string> = {
      accept: this.contentTypes.accept,
      'user-agent': this.userAgent,
    };
    if (bodyType) h['content-type'] = bodyType;
    if (this.connection.token && !this.connection.certPem)
      h.authorization = `Bearer ${this.connection.token}`;
    return h;
  }

  /**
   * One call with rate limit, retries and error mapping; resolves to the body as a JSON value
   * (undefined when empty), for the caller to decode (ResourceClient does, with its kind's schema).
   */
  async request(opts: RequestOptions): Promise<unknown> {
    const res = await this.send(opts, false);
    const bytes = Buffer.from(await res.body.arrayBuffer());
    await loadCodecFor(String(res.headers['content-type'] ?? ''));
    return this.decode(res, bytes, opts);
  }

  /**
   * A streaming GET (watches): the body (JSON lines; protobuf frames are converted) once the status
   * is 2xx.
   */
  async stream(opts: RequestOptions): Promise<StreamResponse> {
    const res = await this.send({ ...opts, method: 'GET' }, true);
    const body: Readable = res.body;
    if (
      mediaTypeOf(String(res.headers['content-type'] ?? '')) !==
      mediaTypeOf(PROTOBUF_WATCH_MEDIA_TYPE)
    )
      return { body, status: res.statusCode };
    await loadCodecFor(PROTOBUF_WATCH_MEDIA_TYPE);
    const lines = new WatchFramesToJsonLines();
    body.on('error', (err) => lines.destroy(err));
    lines.on('close', () => body.destroy());
    return { body: body.pipe(lines), status: res.statusCode };
  }

  /** The text of an error response (a protobuf Status as its JSON). */
  private async errorText(res: Dispatcher.ResponseData): Promise<string> {
    const bytes = Buffer.from(await res.body.arrayBuffer());
    await loadCodecFor(String(res.headers['content-type'] ?? ''));
    try {
      return JSON.stringify(
        this.contentTypes.decode(String(res.headers['content-type'] ?? ''), bytes),
      );
    } catch {
      return bytes.toString('utf8');
    }
  }

  /**
   * GET /healthz with a short timeout, no retries, no rate limit. Resolves true on 200 "ok";
   * false with the reason on anything else.
   */
  async healthz(timeoutMs: number, signal?: AbortSignal): Promise<{ ok: boolean; detail: string }> {
    const ac = new AbortController();
    const onAbort = (): void => ac.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const cancelTimer = afterMs(this.clock, timeoutMs, () =>
      ac.abort(new Error(`timed out after ${timeoutMs} ms`)),
    );
    try {
      const res = await request(this.url('/healthz', undefined), {
        method: 'GET',
        headers: this.headers(undefined),
        dispatcher: this.pools.calls,
        signal: ac.signal,
      });
      const text = await res.body.text();
      return res.statusCode === 200
        ? { ok: true, detail: text.trim() }
        : { ok: false, detail: `HTTP ${res.statusCode}: ${text.trim().slice(0, 200)}` };
    } catch (err) {
      return { ok: false, detail: describeConnectionError(err) };
    } finally {
      cancelTimer();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private encodeBody(opts: RequestOptions): EncodedBody | undefined {
    return opts.body === undefined
      ? undefined
      : this.contentTypes.encode(opts.body, opts.bodyContentType);
  }

  /** Rate limit, attempts and retries of one call; resolves to the 2xx response. */
  private async send(opts: RequestOptions, streaming: boolean): Promise<Dispatcher.ResponseData> {
    const method = opts.method ?? 'GET';
    const limiter = this.limiters[opts.priority ?? 'default'];
    const maxRetries = opts.retry === false ? 0 : this.retryPolicy.maxRetries;
    await this.contentTypes.ready();
    let encoded = this.encodeBody(opts);
    for (let attempt = 0; ; attempt++) {
      await limiter.acquire(opts.signal);
      if (this.closed) throw new NodeAgentError('Api', 'API client is closed');
      const outcome = await this.attempt(opts, method, encoded, streaming);
      if (outcome.kind === 'done') return outcome.res;
      if (outcome.kind === 'fallback') {
        encoded = this.encodeBody(opts);
        continue;
      }
      if (attempt >= maxRetries) throw outcome.failure;
      const delay = retryDelayMs(this.retryPolicy, attempt, outcome.retryAfterMs, this.random);
      this.logger.debug(
        {
          method,
          path: opts.path,
          attempt: attempt + 1,
          delayMs: delay,
          err: userMessage(outcome.failure),
        },
        'retrying API call',
      );
      await this.clock.sleep(delay, opts.signal);
    }
  }

  /**
   * One attempt: the 2xx response, a fallback to JSON (the body is encoded again), or a failure
   * worth retrying. Errors that are not worth retrying (and the caller's abort) are thrown.
   */
  private async attempt(
    opts: RequestOptions,
    method: HttpMethod,
    encoded: EncodedBody | undefined,
    streaming: boolean,
  ): Promise<Attempt> {
    // A stream keeps listening to the caller's signal after we hand its body over.
    let handedOver = false;
    const ac = new AbortController();
    const onAbort = (): void => ac.abort(opts.signal?.reason);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timeoutMs = opts.timeoutMs ?? (streaming ? 0 : this.requestTimeoutMs);
    const cancelTimer =
      timeoutMs > 0
        ? afterMs(this.clock, timeoutMs, () =>
            ac.abort(new Error(`timed out after ${timeoutMs} ms`)),
          )
        : undefined;
    try {
      const res = await request(this.url(opts.path, opts.query), {
        method,
        headers: this.headers(encoded?.type),
        ...(encoded === undefined ? {} : { body: encoded.body }),
        dispatcher: streaming ? this.pools.streams : this.pools.calls,
        signal: ac.signal,
        bodyTimeout: streaming ? 0 : timeoutMs,
        headersTimeout: timeoutMs > 0 ? timeoutMs : 60_000,
      });
      if (this.contentTypes.fallBack(res.statusCode, encoded, opts.path)) {
        await res.body.dump();
        return { kind: 'fallback' };
      }
      if (res.statusCode < 300) {
        if (streaming) cancelTimer?.();
        this.contentTypes.accepted(encoded);
        handedOver = streaming;
        return { kind: 'done', res };
      }
      const failure = this.apiError(method, opts.path, res.statusCode, await this.errorText(res));
      if (!isRetryableStatus(res.statusCode)) throw failure;
      const retryAfterMs = parseRetryAfter(res.headers['retry-after'], this.clock.nowMs());
      return { kind: 'retry', failure, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (opts.signal?.aborted)
        throw opts.signal.reason instanceof Error ? opts.signal.reason : err;
      return {
        kind: 'retry',
        failure: new NodeAgentError(
          'Api',
          `${method} ${this.server}${opts.path}: ${describeConnectionError(err)}`,
          { cause: err },
        ),
      };
    } finally {
      if (!streaming) cancelTimer?.();
      if (!handedOver) opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  private decode(res: Dispatcher.ResponseData, bytes: Buffer, opts: RequestOptions): unknown {
    const type = String(res.headers['content-type'] ?? '');
    if (bytes.length === 0) return undefined;
    const mt = mediaTypeOf(type);
    if (type && !mt.includes('json') && mt !== WIRE_NAMES.protobufMediaType) {
      throw new NodeAgentError(
        'Api',
        `${opts.method ?? 'GET'} ${opts.path}: the API server answered with content ` +
          `type ${type}, which nodeagent cannot decode (JSON and ` +
          `${WIRE_NAMES.protobufMediaType} are)`,
      );
    }
    try {
      return this.contentTypes.decode(type, bytes);
    } catch (err) {
      throw new NodeAgentError(
        'Api',
        `${opts.method ?? 'GET'} ${opts.path}: the API server sent a body that cannot ` +
          `be decoded as ${mt || JSON_TYPE}: ` +
          (err instanceof Error ? err.message : String(err)),
        { cause: err },
      );
    }
  }

  /** Maps an error response (a Status body when the server sends one) to an ApiError. */
  apiError(method: string, path: string, status: number, text: string): ApiError {
    let reason = reasonForStatus(status);
    let message = text.trim().slice(0, 500) || `HTTP ${status}`;
    let details: unknown;
    try {
      const parsed: unknown = JSON.parse(text);
      if (isStatus(parsed)) {
        reason = parsed.reason ?? reason;
        message = parsed.message ?? message;
        details = parsed.details;
      }
    } catch {
      // not JSON: keep the text
    }
    let full = `${method} ${path}: ${message} (HTTP ${status} ${reason})`;
    if (status === 401)
      full =
        `the API server at ${this.server} did not accept the ${this.identity} (401 ` +
        `Unauthorized): ${message}`;
    if (status === 403)
      full =
        `the API server at ${this.server} refused ${method} ${path} for the ` +
        `${this.identity} (403 Forbidden): ${message}`;
    return new ApiError(full, { status, reason, details });
  }
}

function reasonForStatus(status: number): string {
  switch (status) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 409:
      return 'Conflict';
    case 410:
      return 'Expired';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return 'Unknown';
  }
}

/** `v` when it is a string. */
function stringOf(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A short, actionable description of a transport failure. */
export function describeConnectionError(err: unknown): string {
  const e = recordOf(err);
  const cause = recordOf(e.cause);
  const code = stringOf(e.code) ?? stringOf(cause.code);
  const msg = stringOf(cause.message) ?? stringOf(e.message) ?? String(err);
  if (code === 'ECONNREFUSED') return `connection refused (is the API server running?)`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect timed out';
  if (code && /CERT|SELF_SIGNED|UNABLE_TO|TLS|SSL/.test(code))
    return `TLS failure: ${msg} (check the certificate-authority of the platconfig)`;
  return code ? `${msg} (${code})` : msg;
}
